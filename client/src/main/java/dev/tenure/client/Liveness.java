package dev.tenure.client;

import static dev.tenure.client.Session.State.CONNECTED;
import static dev.tenure.client.Session.State.LOST;
import static dev.tenure.client.Session.State.UNCERTAIN;

import dev.tenure.client.internal.Backoff;
import dev.tenure.client.internal.Horizon;
import dev.tenure.client.internal.KeepAliveStream;
import dev.tenure.client.internal.Retrier;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Keeps one session alive: its Attach stream (resumed on the next endpoint when it breaks), a
 * keepalive every TTL/3, the horizon, and the CONNECTED / UNCERTAIN / LOST state.
 *
 * <p>LOST is decided locally from the horizon by a timer, without waiting for any server message:
 * a partitioned client hears nothing, and it must stop acting before the server may grant its
 * locks to someone else (see {@link Horizon} for why the horizon comes first).
 */
final class Liveness implements KeepAliveStream.Handler {
    /** What the session learns; each call runs in the session's event order. */
    interface Events {
        void stateChanged(Session.State from, Session.State to);

        void renewFailed(Throwable cause);

        void leaseEnded(long token, LossReason reason);

        void lost(LossReason reason);
    }

    private final ClientContext ctx;
    private final TimeSource time;
    private final Events events;
    private final EventQueue queue;
    private final Object mu = new Object();
    /** Held while a keepalive's seq is allocated and sent, so keepalives leave in seq order. */
    private final Object sendLock = new Object();

    private final CompletableFuture<Void> opened = new CompletableFuture<>();
    /** Completes, outside the event order, once LOST is decided: what close() waits on. */
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    // Guarded by mu.
    private final Horizon horizon = new Horizon();
    private final List<Waiter> waiters = new ArrayList<>();
    private Session.State state = CONNECTED;
    private boolean closing;
    private long sessionId;
    private long ttlNanos;
    private KeepAliveStream stream;
    private boolean streamOpened;
    private long streamSendNanos;
    private long lastSeq;
    private int connectFailures;
    private long openGiveUpNanos;
    private TenureException openFailure;
    private TimeSource.Cancellable tickTimer;
    private TimeSource.Cancellable horizonTimer;
    private TimeSource.Cancellable retryTimer;
    private TimeSource.Cancellable closeTimer;
    private TimeSource.Cancellable openTimer;

    // Written under mu, read without it.
    private volatile long horizonNanos;
    /** The horizon, or earlier with a disconnect grace: see {@link Horizon#validUntilNanos()}. */
    private volatile long validUntilNanos;

    private volatile Session.State stateView = CONNECTED;
    private volatile LossReason lostReason;

    Liveness(ClientContext ctx, Events events, EventQueue queue) {
        this.ctx = ctx;
        this.time = ctx.time;
        this.events = events;
        this.queue = queue;
    }

    /** Opens the session; fails after the request timeout if no endpoint confirms it. */
    CompletableFuture<Void> open() {
        synchronized (mu) {
            openGiveUpNanos = time.nanoTime() + ctx.requestTimeoutNanos;
            // A silent endpoint neither answers nor fails: give up at the deadline regardless.
            openTimer = time.schedule(this::openTimedOut, ctx.requestTimeoutNanos);
        }
        connect();
        return opened;
    }

    long sessionId() {
        synchronized (mu) {
            return sessionId;
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

    /** Until when this session's leases may be trusted: the horizon, or earlier with a grace. */
    long validUntilNanos() {
        return validUntilNanos;
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
    void close(dev.tenure.api.v1.TenureEnd end) {
        Effects fx = new Effects();
        KeepAliveStream s = null;
        synchronized (mu) {
            if (lostReason != null || closing) {
                return;
            }
            closing = true;
            if (stream != null && streamOpened) {
                s = stream;
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

    // ---- the stream ----

    private void connect() {
        KeepAliveStream s;
        int index;
        long resumeId;
        synchronized (mu) {
            retryTimer = null;
            if (lostReason != null || closing || stream != null) {
                return;
            }
            index = ctx.endpoints.preferred();
            s = new KeepAliveStream(index, this);
            stream = s;
            streamOpened = false;
            resumeId = sessionId;
            // Taken before the Open/Resume leaves, so the renewal it carries is dated no later than
            // the server's commit of it.
            streamSendNanos = time.nanoTime();
        }
        try {
            s.start(ctx.attachMux(index));
        } catch (IllegalStateException clientClosed) {
            broken(s, Status.UNAVAILABLE.withDescription("client closed").withCause(clientClosed));
            return;
        }
        long graceMs = TimeUnit.NANOSECONDS.toMillis(ctx.graceNanos);
        if (resumeId == 0) {
            s.sendOpen(TimeUnit.NANOSECONDS.toMillis(ctx.ttlNanos), ctx.clientName, graceMs);
        } else {
            s.sendResume(resumeId, graceMs);
        }
    }

    @Override
    public void opened(KeepAliveStream s, long id, long ttlMs, long graceMs) {
        Effects fx = new Effects();
        synchronized (mu) {
            if (s != stream || lostReason != null) {
                return;
            }
            streamOpened = true;
            connectFailures = 0;
            boolean resumed = sessionId != 0;
            if (!resumed) {
                start(id, ttlMs);
            }
            // The grace the node applies, never more than asked: a node without it says 0.
            long graceNanos = Math.min(ctx.graceNanos, TimeUnit.MILLISECONDS.toNanos(graceMs));
            horizon.grace(graceNanos > 0 ? graceNanos - ctx.marginNanos(graceNanos) : -1);
            if (resumed) {
                // A Resume renews: the horizon moves from the Resume's send time, not from the
                // reconnect. Waiters are answered now; fence() re-checks what that gave.
                horizon.renewed(streamSendNanos);
                waiters.forEach(w -> fx.add(() -> w.done.complete(null)));
                waiters.clear();
                setState(CONNECTED);
            }
            horizonMoved();
        }
        finish(fx);
    }

    private void horizonMoved() {
        horizonNanos = horizon.valueNanos();
        validUntilNanos = horizon.validUntilNanos();
    }

    /** A third of the TTL, or of the grace: leases stay valid only that long after a confirmed renewal. */
    private long keepAliveIntervalNanos() {
        return (ctx.graceNanos > 0 ? Math.min(ttlNanos, ctx.graceNanos) : ttlNanos) / 3;
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

    private void start(long id, long ttlMs) {
        sessionId = id;
        // The server's TTL rules: it is the one that will expire the session.
        ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs > 0 ? ttlMs : ctx.ttlNanos / 1_000_000);
        horizon.start(streamSendNanos, ttlNanos - ctx.marginNanos(ttlNanos));
        horizonMoved();
        cancel(openTimer);
        tickTimer = time.schedule(this::tick, untilNextTick());
        horizonTimer = time.schedule(this::checkHorizon, horizonNanos - time.nanoTime());
        queue.add(() -> opened.complete(null));
    }

    @Override
    public void acked(KeepAliveStream s, long seq) {
        Effects fx = new Effects();
        synchronized (mu) {
            if (s != stream || lostReason != null) {
                return;
            }
            OptionalLong sent = horizon.acked(seq);
            if (sent.isEmpty()) {
                return;
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
        }
        finish(fx);
    }

    @Override
    public void leaseEnded(KeepAliveStream s, String lock, long token, dev.tenure.api.v1.TenureEnd end) {
        queue.add(() -> events.leaseEnded(token, LossReason.of(TenureEnd.from(end))));
        queue.drain();
    }

    @Override
    public void sessionEnded(KeepAliveStream s, dev.tenure.api.v1.TenureEnd end, String message) {
        Effects fx = new Effects();
        synchronized (mu) {
            if (sessionId == 0) {
                if (s == stream) {
                    openFailure = new SessionLostException("server ended the session while opening it: " + message);
                    markLost(LossReason.SESSION_ENDED, fx);
                }
            } else {
                // From any stream: the server ending the session is authoritative.
                TenureEnd te = TenureEnd.from(end);
                markLost(te == TenureEnd.NONE && closing ? LossReason.RELEASED : LossReason.of(te), fx);
            }
        }
        finish(fx);
    }

    @Override
    public void broken(KeepAliveStream s, Status status) {
        Effects fx = new Effects();
        boolean retryNow = false;
        synchronized (mu) {
            if (s != stream) {
                return;
            }
            stream = null;
            streamOpened = false;
            horizon.forgetOutstanding(); // their acks can never arrive now
            ctx.endpoints.failed(s.endpoint());
            if (lostReason != null) {
                return;
            } else if (closing) {
                markLost(LossReason.RELEASED, fx);
            } else if (sessionId == 0) {
                retryNow = openFailed(status, fx);
            } else {
                setState(UNCERTAIN);
                queue.add(() -> events.renewFailed(status.asRuntimeException()));
                retryNow = scheduleReconnect();
            }
        }
        finish(fx);
        if (retryNow) {
            connect();
        }
    }

    private boolean openFailed(Status status, Effects fx) {
        if (!Retrier.retryable(status.getCode())) {
            openFailure = Retrier.failure(status);
        } else if (time.nanoTime() - openGiveUpNanos >= 0) {
            openFailure = new UnavailableException(
                    "no endpoint opened a session within " + TimeUnit.NANOSECONDS.toMillis(ctx.requestTimeoutNanos)
                            + " ms (last: " + Retrier.brief(status) + ")",
                    status.asRuntimeException());
        } else {
            return scheduleReconnect();
        }
        markLost(LossReason.SESSION_ENDED, fx);
        return false;
    }

    /** Returns true to reconnect at once; else a timer does it after the backoff. */
    private boolean scheduleReconnect() {
        connectFailures++;
        long delay = Backoff.delayNanos(connectFailures, ctx.endpoints.size());
        if (delay == 0) {
            return true;
        }
        retryTimer = time.schedule(this::connect, delay);
        return false;
    }

    // ---- timers ----

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
            KeepAliveStream s;
            long seq;
            synchronized (mu) {
                if (lostReason != null || closing || stream == null || !streamOpened) {
                    return;
                }
                s = stream;
                seq = ++lastSeq;
                horizon.sent(seq, time.nanoTime()); // just before sending: see streamSendNanos
            }
            s.sendKeepAlive(seq, onTick);
        }
    }

    private void openTimedOut() {
        Effects fx = new Effects();
        synchronized (mu) {
            if (sessionId != 0 || lostReason != null) {
                return;
            }
            openFailure = new UnavailableException(
                    "no endpoint opened a session within " + TimeUnit.NANOSECONDS.toMillis(ctx.requestTimeoutNanos)
                            + " ms",
                    null);
            markLost(LossReason.SESSION_ENDED, fx);
        }
        finish(fx);
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
        Session.State from = state;
        state = LOST;
        stateView = LOST;
        cancel(tickTimer);
        cancel(horizonTimer);
        cancel(retryTimer);
        cancel(closeTimer);
        cancel(openTimer);
        KeepAliveStream s = stream;
        boolean wasOpen = streamOpened;
        stream = null;
        streamOpened = false;
        waiters.forEach(w -> fx.add(() -> w.done.complete(null)));
        waiters.clear();
        fx.add(() -> ended.complete(null));
        if (sessionId == 0) {
            TenureException e =
                    openFailure != null ? openFailure : new SessionLostException("session closed before it opened");
            if (s != null) {
                fx.add(s::leave);
            }
            queue.add(() -> opened.completeExceptionally(e));
            return;
        }
        if (s != null) {
            // Past the horizon the client has already given its leases up; saying so lets the next
            // waiter in now instead of at the server's TTL. It says EXPIRED, not RELEASED: the work
            // may have stopped half-way, and the next holder must learn that from previous_end.
            boolean tell = wasOpen && reason == LossReason.HORIZON_PASSED;
            fx.add(() -> {
                if (tell) {
                    s.sendClose(dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED);
                }
                s.leave();
            });
        }
        queue.add(() -> events.stateChanged(from, LOST));
        queue.add(() -> events.lost(reason));
    }

    private void finish(Effects fx) {
        fx.run();
        queue.drain();
    }

    private static void cancel(TimeSource.Cancellable timer) {
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
