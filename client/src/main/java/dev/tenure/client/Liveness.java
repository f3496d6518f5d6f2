package dev.tenure.client;

import static dev.tenure.client.Session.State.CONNECTED;
import static dev.tenure.client.Session.State.LOST;
import static dev.tenure.client.Session.State.UNCERTAIN;

import com.google.protobuf.ByteString;
import dev.tenure.client.internal.Horizon;
import dev.tenure.client.internal.SessionStream;
import dev.tenure.client.internal.TenureEnd;
import dev.tenure.client.spi.TimeSource;
import io.grpc.Channel;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Decides how long one session's leases may be trusted: a keepalive every TTL/3, the horizon,
 * and the CONNECTED / UNCERTAIN / LOST state. The stream the keepalives travel on, and its
 * resumption on the next endpoint when it breaks, are {@link SessionStreams}'s; this lock guards
 * both.
 *
 * <p>LOST is decided locally from the horizon by a timer, without waiting for any server message:
 * a partitioned client hears nothing, and it must stop acting before the server may grant its
 * locks to someone else (see {@link Horizon} for why the horizon comes first).
 */
final class Liveness {
    /** What the session learns; each call runs in the session's event order. */
    interface Events {
        void stateChanged(Session.State from, Session.State to);

        void renewFailed(Throwable cause);

        void leaseEnded(long token, LossReason reason);

        /** The leases' validity ran out before their horizon: no stream proved the session in time. */
        void validityLapsed();

        void lost(LossReason reason);
    }

    /** The disconnect grace's default. */
    static final long DEFAULT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(900);

    private final ClientContext ctx;
    private final TimeSource time;
    private final Events events;
    private final EventQueue queue;
    private final Object mu = new Object();
    /** Held while a keepalive's seq is allocated and sent, so keepalives leave in seq order. */
    private final Object sendLock = new Object();

    private final SessionStreams streams;
    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    /** Completes, outside the event order, once LOST is decided: what close() waits on. */
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    // Guarded by mu.
    private final Horizon horizon = new Horizon();
    private final List<Waiter> waiters = new ArrayList<>();
    private Session.State state = CONNECTED;
    private boolean closing;
    private long sessionId;
    /** Given by the node with the session's first Opened; shown with every request for it. */
    private ByteString secret = ByteString.EMPTY;

    private long ttlNanos;
    private long lastSeq;
    private @Nullable TenureException openFailure;
    private TimeSource.@Nullable Cancellable tickTimer;
    private TimeSource.@Nullable Cancellable validityTimer;
    private TimeSource.@Nullable Cancellable horizonTimer;
    /** The current stream's node answers echoes. */
    private boolean echoes;

    /** The validity bound whose lapse was last told: a later lapse has a later bound, and is told too. */
    private long lapseToldFor = Long.MIN_VALUE;

    private TimeSource.@Nullable Cancellable closeTimer;

    // Written under mu, read without it.
    private volatile long horizonNanos;
    /** The horizon, or earlier with a disconnect grace: see {@link Horizon#validUntilNanos()}. */
    private volatile long ownValidUntilNanos;
    /** The grace's bound after a proof ({@link Horizon#graceLifetimeNanos()}), for lock-free reads. */
    private volatile long graceLifetimeNanos = -1;
    /** The current stream, when its call's echoes prove it: its proof counts too ({@link #validUntilNanos()}). */
    private volatile @Nullable SessionStream provingStream;

    private volatile Session.State stateView = CONNECTED;
    private volatile @Nullable LossReason lostReason;

    Liveness(ClientContext ctx, Events events, EventQueue queue) {
        this.ctx = ctx;
        this.time = ctx.time;
        this.events = events;
        this.queue = queue;
        this.streams = new SessionStreams(ctx, this, mu);
    }

    /** Opens the session; fails after the request timeout if no endpoint confirms it. */
    CompletableFuture<Void> open() {
        streams.open();
        return opened;
    }

    long sessionId() {
        synchronized (mu) {
            return sessionId;
        }
    }

    Caller caller() {
        synchronized (mu) {
            return new Caller(sessionId, secret);
        }
    }

    Duration ttl() {
        synchronized (mu) {
            return Duration.ofNanos(ttlNanos);
        }
    }

    long horizonNanos() {
        return horizonNanos;
    }

    /**
     * Until when this session's leases may be trusted: the horizon, or earlier with a grace. The
     * latest proof is the session's own (an Open, Resume or renewal) or its stream's call's echo,
     * read here rather than handed to each session on every answer.
     */
    long validUntilNanos() {
        long own = ownValidUntilNanos;
        SessionStream s = provingStream;
        long proof = s == null ? SessionStream.NO_PROOF : s.proofNanos();
        if (proof == SessionStream.NO_PROOF) {
            return own;
        }
        long viaCall = proof + graceLifetimeNanos;
        long h = horizonNanos;
        if (viaCall - h > 0) {
            viaCall = h;
        }
        return viaCall - own > 0 ? viaCall : own;
    }

    /**
     * True if the call's proof is what keeps leases valid until {@code untilNanos}: its own lapse
     * timer then tells this session in time, and the session needs no timer of its own.
     */
    private boolean callCovers(long untilNanos) {
        return untilNanos != ownValidUntilNanos && graceLifetimeNanos == ctx.proofLifetimeNanos();
    }

    /** The longest a renewal can make leases trustworthy for: the lifetime, or the grace's. */
    long validLifetimeNanos() {
        synchronized (mu) {
            long grace = horizon.graceLifetimeNanos();
            return grace < 0 ? horizon.lifetimeNanos() : grace;
        }
    }

    Session.State state() {
        return stateView;
    }

    /** Null while the session lives. Set before any loss event runs, so readers never lag. */
    @Nullable
    LossReason lostReason() {
        return lostReason;
    }

    CompletableFuture<Void> ended() {
        return ended;
    }

    /**
     * Sends a keepalive now. The future completes when a renewal sent from now on is
     * acknowledged (or a Resume re-opens the session), or when the session is lost; the horizon
     * timer bounds the wait by the time left.
     */
    CompletableFuture<Void> renewNow() {
        Waiter w;
        synchronized (mu) {
            if (lostReason != null) {
                return CompletableFuture.completedFuture(null);
            }
            w = new Waiter(time.nanoTime());
            waiters.add(w);
        }
        sendKeepAlive(false); // with the stream down this sends nothing; the Resume's Opened answers w
        return w.done;
    }

    /** LOST now if the horizon has passed, without waiting for the timer to run. */
    void checkHorizon() {
        Effects fx = new Effects();
        synchronized (mu) {
            if (lostReason != null || sessionId == 0) {
                return;
            }
            long now = time.nanoTime();
            if (horizon.passed(now)) {
                markLost(LossReason.HORIZON_PASSED, fx);
            } else {
                // Lazily re-armed: acks move the horizon often; the timer follows when it fires.
                horizonTimer = time.schedule(this::checkHorizon, horizon.valueNanos() - now);
            }
        }
        finish(fx);
    }

    /** The server answered a request with CODE_SESSION_LOST: it no longer knows the session. */
    void endedByServer() {
        Effects fx = new Effects();
        synchronized (mu) {
            markLost(LossReason.SESSION_ENDED, fx);
        }
        finish(fx);
    }

    /** Sends Close with {@code end}; LOST(RELEASED) follows on the server's answer or after a short wait. */
    void close(TenureEnd end) {
        Effects fx = new Effects();
        SessionStream s;
        synchronized (mu) {
            if (lostReason != null || closing) {
                return;
            }
            closing = true;
            s = streams.openStream();
            if (s != null) {
                closeTimer = time.schedule(this::closeTimedOut, ctx.closeWaitNanos());
            } else {
                // No stream to say it on: the server ends the session at its TTL.
                markLost(LossReason.RELEASED, fx);
            }
        }
        finish(fx);
        if (s != null) {
            s.sendClose(end);
        }
    }

    // ---- what the stream tells (from SessionStreams, under mu) ----

    /** Whether the session still wants a stream: not lost, not closing. */
    boolean wantsStream() {
        return lostReason == null && !closing;
    }

    /** The session is on a stream: an Open or a Resume sent at {@code sentNanos} was confirmed. */
    void attached(
            SessionStream s,
            long id,
            long ttlMs,
            long graceMs,
            boolean nodeEchoes,
            ByteString sessionSecret,
            long sentNanos,
            Effects fx) {
        boolean resumed = sessionId != 0;
        echoes = nodeEchoes;
        if (!resumed) {
            secret = sessionSecret;
            start(id, ttlMs, sentNanos);
        }
        // The grace the node applies, never more than asked: a node without it says 0.
        long graceNanos = Math.min(ctx.graceNanos, TimeUnit.MILLISECONDS.toNanos(graceMs));
        horizon.grace(graceNanos > 0 ? graceNanos - ctx.marginNanos(graceNanos) : -1);
        graceLifetimeNanos = horizon.graceLifetimeNanos();
        provingStream = echoes && ctx.graceNanos > 0 ? s : null;
        if (resumed) {
            // A Resume renews: the horizon moves from the Resume's send time, not from the
            // reconnect. Waiters are answered now; fence() re-checks what that gave.
            horizon.renewed(sentNanos);
            rescheduleTick();
            waiters.forEach(w -> fx.add(() -> w.done.complete(null)));
            waiters.clear();
            setState(CONNECTED);
        }
        horizonMoved();
    }

    /**
     * A call of this session, sent on {@code channel} at {@code sentNanos}, was answered by a node
     * that still had the session on a stream it had not seen end (CallResponse.session_attached).
     * It proves the session as an echo does, if the session's stream runs on that same connection
     * and was confirmed before the call left: then the stream the node had is this one.
     */
    void callProved(Channel channel, long sentNanos) {
        synchronized (mu) {
            SessionStream s = streams.openStream();
            if (lostReason != null
                    || s == null
                    || s.channel() != channel
                    || sentNanos - streams.confirmedNanos() <= 0) {
                return;
            }
            horizon.proved(sentNanos);
            horizonMoved();
            s.callProved(sentNanos);
        }
    }

    /**
     * The session leaves stream {@code s}: what its call proved stays proved (the node had not
     * seen it end then), so it becomes the session's own proof. Under mu.
     */
    void streamLeft(SessionStream s) {
        if (provingStream != s) {
            return;
        }
        long proof = s.proofNanos();
        if (proof != SessionStream.NO_PROOF) {
            horizon.proved(proof);
        }
        provingStream = null;
        horizonMoved();
    }

    /** Keepalive {@code seq} was acknowledged; false if it was not one still outstanding. */
    boolean acked(long seq, Effects fx) {
        OptionalLong sent = horizon.acked(seq);
        if (sent.isEmpty()) {
            return false;
        }
        horizonMoved();
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            if (w.sinceNanos - sent.getAsLong() <= 0) {
                it.remove();
                fx.add(() -> w.done.complete(null));
            }
        }
        setState(CONNECTED);
        return true;
    }

    /** Not under mu: the event only needs the session's event order. */
    void leaseEnded(long token, TenureEnd end) {
        queue.add(() -> events.leaseEnded(token, LossReason.of(end)));
        queue.drain();
    }

    /** The server ended the session, on the session's current stream or an older one. */
    void sessionEnded(boolean currentStream, TenureEnd end, String message, Effects fx) {
        if (sessionId == 0) {
            if (currentStream) {
                openFailure = new TenureException(
                        TenureException.Code.SESSION_LOST, "server ended the session while opening it: " + message);
                markLost(LossReason.SESSION_ENDED, fx);
            }
        } else {
            // From any stream: the server ending the session is authoritative.
            markLost(end == TenureEnd.NONE && closing ? LossReason.RELEASED : LossReason.of(end), fx);
        }
    }

    /** The stream broke while the session lives; true if it should get another one. */
    boolean streamBroken(Status status, Effects fx) {
        horizon.forgetOutstanding(); // their acks can never arrive now
        if (closing) {
            markLost(LossReason.RELEASED, fx);
            return false;
        }
        if (sessionId != 0 && refusesThisClient(status)) {
            // The node will not let this client resume (its principal lost the permission, its
            // certificate is no longer accepted): no stream will prove the session again, and
            // waiting for the horizon would only hold the leases' doubt longer.
            markLost(LossReason.REVOKED, fx);
            return false;
        }
        if (sessionId != 0) {
            setState(UNCERTAIN);
            queue.add(() -> events.renewFailed(status.asRuntimeException()));
        }
        return true;
    }

    private static boolean refusesThisClient(Status status) {
        return status.getCode() == Status.Code.PERMISSION_DENIED || status.getCode() == Status.Code.UNAUTHENTICATED;
    }

    /** No endpoint will open the session: {@code failure} is what open() fails with. */
    void openFailed(TenureException failure, Effects fx) {
        openFailure = failure;
        markLost(LossReason.SESSION_ENDED, fx);
    }

    private void start(long id, long ttlMs, long sentNanos) {
        sessionId = id;
        ctx.opened(id, this);
        // The server's TTL rules: it is the one that will expire the session.
        ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs > 0 ? ttlMs : ctx.ttlNanos / 1_000_000);
        horizon.start(sentNanos, ttlNanos - ctx.marginNanos(ttlNanos));
        horizonMoved();
        tickTimer = time.schedule(this::tick, untilNextTick());
        horizonTimer = time.schedule(this::checkHorizon, horizonNanos - time.nanoTime());
        queue.add(() -> opened.complete(null));
    }

    private void horizonMoved() {
        horizonNanos = horizon.valueNanos();
        ownValidUntilNanos = horizon.validUntilNanos();
        if (validityTimer != null || lostReason != null) {
            return;
        }
        long until = validUntilNanos();
        if (until != horizonNanos && !callCovers(until)) {
            validityTimer = time.schedule(this::checkValidity, until - time.nanoTime());
        }
    }

    /**
     * Tells the session once its leases' validity has run out before the horizon (which LOST
     * covers): they may be valid again if a stream proves the session in time. Lazily re-armed:
     * proofs move the bound many times per grace, the timer follows when it fires. While the
     * call's echoes keep the leases valid, the call's lapse is what runs this instead.
     */
    void checkValidity() {
        synchronized (mu) {
            validityTimer = null;
            if (lostReason != null) {
                return;
            }
            long until = validUntilNanos();
            long left = until - time.nanoTime();
            if (left > 0) {
                if (!callCovers(until)) {
                    validityTimer = time.schedule(this::checkValidity, left);
                }
                return;
            }
            if (until != lapseToldFor) {
                lapseToldFor = until;
                queue.add(events::validityLapsed);
            }
            // Armed again by the next proof of the session's own (horizonMoved) or the call's
            // next lapse; until then nothing can change.
        }
        queue.drain();
    }

    // ---- the keepalive schedule ----

    /**
     * A third of the TTL. A node that does not answer echoes proves the stream by renewals alone,
     * so with a grace they go every third of it: leases stay valid only that long after one.
     */
    private long keepAliveIntervalNanos() {
        return (!echoes && ctx.graceNanos > 0 ? Math.min(ttlNanos, ctx.graceNanos) : ttlNanos) / 3;
    }

    /** A Resume unanswered this long replaces the connection: as an echo's, see {@link ClientContext#doubtAfterNanos}. */
    long doubtAfterNanos() {
        return ctx.graceNanos > 0 ? ctx.doubtAfterNanos() : ttlNanos / 3;
    }

    private void rescheduleTick() {
        cancel(tickTimer);
        tickTimer = time.schedule(this::tick, untilNextTick());
    }

    /**
     * Keepalives fall on a grid of the interval on the client's monotonic clock, so every session
     * of one process with the same interval renews in the same instant: the node then serves them
     * as one burst and its threads go idle between bursts, where keepalives spread over the
     * interval would keep them awake. The first tick may come early, which only renews sooner.
     */
    private long untilNextTick() {
        long interval = keepAliveIntervalNanos();
        return interval - Math.floorMod(time.nanoTime(), interval);
    }

    private void tick() {
        synchronized (mu) {
            if (lostReason != null) {
                return;
            }
            long interval = keepAliveIntervalNanos();
            tickTimer = time.schedule(this::tick, untilNextTick());
            if (state == CONNECTED && horizon.overdue(time.nanoTime(), interval)) {
                setState(UNCERTAIN);
                long ms = TimeUnit.NANOSECONDS.toMillis(interval);
                queue.add(() ->
                        events.renewFailed(new TimeoutException("keepalive not acknowledged within " + ms + " ms")));
            }
        }
        queue.drain();
        sendKeepAlive(true);
    }

    /** {@code onTick}: from the timer, to leave with the other sessions' keepalives of that instant. */
    private void sendKeepAlive(boolean onTick) {
        synchronized (sendLock) {
            SessionStream s;
            long seq;
            synchronized (mu) {
                s = streams.openStream();
                if (lostReason != null || closing || s == null) {
                    return;
                }
                seq = ++lastSeq;
                // Just before sending, as an Open or Resume is dated: no later than the server's commit.
                horizon.sent(seq, time.nanoTime());
            }
            s.sendKeepAlive(seq, onTick);
        }
    }

    private void closeTimedOut() {
        Effects fx = new Effects();
        synchronized (mu) {
            markLost(LossReason.RELEASED, fx);
        }
        finish(fx);
    }

    // ---- state (all under mu) ----

    private void setState(Session.State to) {
        if (state == to || state == LOST) {
            return;
        }
        Session.State from = state;
        state = to;
        stateView = to;
        queue.add(() -> events.stateChanged(from, to));
    }

    /** The one way into LOST; it is final. */
    private void markLost(LossReason reason, Effects fx) {
        if (lostReason != null) {
            return;
        }
        lostReason = reason;
        ctx.ended(sessionId);
        Session.State from = state;
        state = LOST;
        stateView = LOST;
        cancel(tickTimer);
        cancel(validityTimer);
        cancel(horizonTimer);
        cancel(closeTimer);
        waiters.forEach(w -> fx.add(() -> w.done.complete(null)));
        waiters.clear();
        fx.add(() -> ended.complete(null));
        if (sessionId == 0) {
            TenureException e = openFailure != null
                    ? openFailure
                    : new TenureException(TenureException.Code.SESSION_LOST, "session closed before it opened");
            streams.stop(false, fx);
            queue.add(() -> opened.completeExceptionally(e));
            return;
        }
        // Past the horizon the client has already given its leases up; saying so lets the next
        // waiter in now instead of at the server's TTL. It says EXPIRED, not RELEASED: the work
        // may have stopped half-way, and the next holder must learn that from previous_end.
        streams.stop(reason == LossReason.HORIZON_PASSED, fx);
        queue.add(() -> events.stateChanged(from, LOST));
        queue.add(() -> events.lost(reason));
    }

    /** Runs what was decided under mu, then the events: call it after releasing mu. */
    void finish(Effects fx) {
        fx.run();
        queue.drain();
    }

    private static void cancel(TimeSource.@Nullable Cancellable timer) {
        if (timer != null) {
            timer.cancel();
        }
    }

    /** A fence() waiting for a renewal sent at or after {@code sinceNanos}. */
    private static final class Waiter {
        final long sinceNanos;
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Waiter(long sinceNanos) {
            this.sinceNanos = sinceNanos;
        }
    }
}
