package dev.tenure.client;

import com.google.protobuf.ByteString;
import dev.tenure.client.internal.Backoff;
import dev.tenure.client.internal.Retrier;
import dev.tenure.client.internal.SessionStream;
import dev.tenure.client.internal.TenureEnd;
import dev.tenure.client.spi.TimeSource;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One session's succession of Attach streams: the first one sends Open, and each one after a
 * break sends Resume on the next endpoint, after a backoff. It decides only which stream is the
 * session's now and when to try another; what a stream's events mean for the session's trust in
 * its leases is {@link Liveness}'s to decide.
 *
 * <p>Its state is guarded by the session's liveness lock, not a lock of its own: a break drops the
 * stream and makes the session UNCERTAIN in one step, and a loss ends the state and the stream
 * together, so no thread sees one change without the other.
 */
final class SessionStreams implements SessionStream.Handler {
    private final ClientContext ctx;
    private final TimeSource time;
    private final Liveness live;
    private final Object mu;

    // Guarded by mu.
    private @Nullable SessionStream stream;
    private boolean streamOpened;
    private long streamSendNanos;
    /** When the current stream's Open or Resume was confirmed. */
    private long confirmedNanos;

    private int connectFailures;
    private long openGiveUpNanos;
    private TimeSource.@Nullable Cancellable retryTimer;
    private TimeSource.@Nullable Cancellable openTimer;
    private TimeSource.@Nullable Cancellable resumeTimer;
    /**
     * The session's attachment as last confirmed, which the next Resume expects: a Resume sent on a
     * stream given up since then can then no longer take the session from the stream that
     * carries it now, and so no stream's proof can outlive the attachment it was given on.
     */
    private long knownAttachment;

    /** {@code mu}: the lock of {@code live}, which guards this too. */
    SessionStreams(ClientContext ctx, Liveness live, Object mu) {
        this.ctx = ctx;
        this.time = ctx.time;
        this.live = live;
        this.mu = mu;
    }

    /** Sends the Open; gives up after the request timeout if no endpoint confirms it. */
    void open() {
        synchronized (mu) {
            openGiveUpNanos = time.nanoTime() + ctx.requestTimeoutNanos;
            // A silent endpoint neither answers nor fails: give up at the deadline regardless.
            openTimer = time.schedule(this::openTimedOut, ctx.requestTimeoutNanos);
        }
        connect();
    }

    /** When the stream {@link #openStream()} returns was confirmed. Under mu. */
    long confirmedNanos() {
        return confirmedNanos;
    }

    /** The stream to send on, or null while none has been opened or resumed. Under mu. */
    @Nullable
    SessionStream openStream() {
        return stream != null && streamOpened ? stream : null;
    }

    /**
     * Stops for good (the session is lost): no more reconnects, and the stream is left, after a
     * Close(EXPIRED) if {@code sayExpired} and it is open. Under mu; the sends go into {@code fx}.
     */
    void stop(boolean sayExpired, Effects fx) {
        cancel(retryTimer);
        cancel(openTimer);
        cancel(resumeTimer);
        SessionStream s = stream;
        boolean tell = sayExpired && streamOpened;
        stream = null;
        streamOpened = false;
        if (s != null) {
            fx.add(() -> {
                if (tell) {
                    s.sendClose(TenureEnd.EXPIRED);
                }
                s.leave();
            });
        }
    }

    private void connect() {
        SessionStream s;
        int index;
        long resumeId;
        long expected;
        ByteString secret;
        synchronized (mu) {
            retryTimer = null;
            if (!live.wantsStream() || stream != null) {
                return;
            }
            index = ctx.endpoints.preferred();
            s = new SessionStream(index, this);
            stream = s;
            streamOpened = false;
            resumeId = live.sessionId();
            expected = knownAttachment;
            secret = live.caller().secret();
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
        if (resumeId != 0 && ctx.graceNanos > 0) {
            synchronized (mu) {
                // A Resume on a connection that went silent is never answered, and no echo goes
                // on a stream not yet resumed: without this the session would wait for its horizon.
                // Not without a grace: replacing the connection would end, at once, every other
                // session on it that its node still holds.
                long due = time.nanoTime() + live.doubtAfterNanos();
                resumeTimer = time.schedule(() -> resumeTimedOut(s, due), live.doubtAfterNanos());
            }
        }
        if (resumeId == 0) {
            s.sendOpen(TimeUnit.NANOSECONDS.toMillis(ctx.ttlNanos), ctx.clientName, graceMs);
        } else {
            s.sendResume(resumeId, graceMs, expected, secret);
        }
    }

    @Override
    public void opened(
            SessionStream s,
            long id,
            long ttlMs,
            long graceMs,
            boolean echoes,
            long attachment,
            ByteString sessionSecret) {
        Effects fx = new Effects();
        synchronized (mu) {
            if (s != stream || live.lostReason() != null) {
                return;
            }
            streamOpened = true;
            confirmedNanos = time.nanoTime();
            connectFailures = 0;
            knownAttachment = attachment;
            cancel(resumeTimer);
            if (live.sessionId() == 0) {
                cancel(openTimer);
            }
            live.attached(s, id, ttlMs, graceMs, echoes, sessionSecret, streamSendNanos, fx);
            if (echoes && ctx.graceNanos > 0) {
                // At once, not at the call's next tick: the proof so far dates from the Open or
                // Resume's send time, which on a cold start or a slow reconnect may be most of a
                // grace ago.
                fx.add(s::echoSoon);
            }
        }
        live.finish(fx);
    }

    @Override
    public void acked(SessionStream s, long seq) {
        Effects fx = new Effects();
        synchronized (mu) {
            if (s != stream || live.lostReason() != null) {
                return;
            }
            if (!live.acked(seq, fx)) {
                return;
            }
        }
        live.finish(fx);
    }

    /**
     * The proof the stream's call gave it lapsed. (An echo unanswered too long on a silent
     * connection breaks the call, see {@link dev.tenure.client.internal.AttachMux}, which reaches
     * {@link #broken}.)
     */
    @Override
    public void proofLapsed(SessionStream s) {
        synchronized (mu) {
            if (s != stream) {
                return;
            }
        }
        live.checkValidity();
    }

    /**
     * A Resume of ours sent on a stream given up since was applied after all: expect its
     * attachment, which no stream we use carries, and resume again, at once. The node ends this
     * stream after the Superseded, but only a whole Attach call says so; a sub-stream of an
     * AttachMany call ends without a word, and its session, waiting for an answer on a connection
     * that kept hearing from its node, waited until its horizon and was lost.
     */
    @Override
    public void superseded(SessionStream s, long attachment) {
        synchronized (mu) {
            if (s != stream) {
                return;
            }
            knownAttachment = Math.max(knownAttachment, attachment);
        }
        s.leave();
        broken(s, Status.ABORTED.withDescription("resume superseded by attachment " + attachment + ": resuming again"));
    }

    /**
     * Only a silent call is replaced: on one that hears from its node (other sessions' answers),
     * the Resume is merely slow, and replacing the connection would make every session on it
     * resume too. Checked again every third of the doubt time until it is answered or the call
     * falls silent (on a connection that has heard nothing yet, that takes longer: see {@link
     * dev.tenure.client.internal.Heard}).
     */
    private void resumeTimedOut(SessionStream s, long dueNanos) {
        long doubt = live.doubtAfterNanos();
        long waitedNanos;
        synchronized (mu) {
            if (s != stream || streamOpened || live.lostReason() != null) {
                return;
            }
            if (!s.callSilentFor(doubt, time.nanoTime() - dueNanos)) {
                long due = time.nanoTime() + doubt / 3;
                resumeTimer = time.schedule(() -> resumeTimedOut(s, due), doubt / 3);
                return;
            }
            waitedNanos = time.nanoTime() - streamSendNanos;
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(waitedNanos);
        ctx.connectionSilent(
                s,
                Status.UNAVAILABLE.withDescription(
                        "no answer to the resume within " + ms + " ms and the connection silent: replaced"));
    }

    @Override
    public void leaseEnded(SessionStream s, String lock, long token, TenureEnd end) {
        live.leaseEnded(token, end);
    }

    @Override
    public void sessionEnded(SessionStream s, TenureEnd end, String message) {
        Effects fx = new Effects();
        synchronized (mu) {
            live.sessionEnded(s == stream, end, message, fx);
        }
        live.finish(fx);
    }

    @Override
    public void broken(SessionStream s, Status status) {
        Effects fx = new Effects();
        boolean retryNow = false;
        synchronized (mu) {
            if (s != stream) {
                return;
            }
            live.streamLeft(s);
            stream = null;
            streamOpened = false;
            ctx.endpoints.failed(s.endpoint());
            if (live.lostReason() != null) {
                return;
            }
            if (live.streamBroken(status, fx)) {
                retryNow = live.sessionId() == 0 ? openAttemptFailed(status, fx) : scheduleReconnect();
            }
        }
        live.finish(fx);
        if (retryNow) {
            connect();
        }
    }

    @Override
    public boolean movedOn(SessionStream s) {
        synchronized (mu) {
            return live.lostReason() != null || !live.wantsStream() || (stream != s && streamOpened);
        }
    }

    /** Returns true to try again at once; else a timer tries again, or the session failed to open. */
    private boolean openAttemptFailed(Status status, Effects fx) {
        if (!Retrier.retryable(status.getCode())) {
            live.openFailed(Retrier.failure(status), fx);
        } else if (time.nanoTime() - openGiveUpNanos >= 0) {
            live.openFailed(
                    new UnavailableException(
                            "no endpoint opened a session within "
                                    + TimeUnit.NANOSECONDS.toMillis(ctx.requestTimeoutNanos) + " ms (last: "
                                    + Retrier.brief(status) + ")",
                            status.asRuntimeException()),
                    fx);
        } else {
            return scheduleReconnect();
        }
        return false;
    }

    /** Returns true to reconnect at once; else a timer does it after the backoff. */
    private boolean scheduleReconnect() {
        connectFailures++;
        long delay = Backoff.delayNanos(connectFailures, ctx.endpoints.size(), time.random());
        if (delay == 0) {
            return true;
        }
        retryTimer = time.schedule(this::connect, delay);
        return false;
    }

    private void openTimedOut() {
        Effects fx = new Effects();
        synchronized (mu) {
            if (live.sessionId() != 0 || live.lostReason() != null) {
                return;
            }
            live.openFailed(
                    new UnavailableException(
                            "no endpoint opened a session within "
                                    + TimeUnit.NANOSECONDS.toMillis(ctx.requestTimeoutNanos) + " ms",
                            null),
                    fx);
        }
        live.finish(fx);
    }

    private static void cancel(TimeSource.@Nullable Cancellable timer) {
        if (timer != null) {
            timer.cancel();
        }
    }
}
