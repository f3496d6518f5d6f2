package dev.tenure.client;

import dev.tenure.api.v1.Grant;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One grant of one lock to one session. Its token is the evidence storage checks; its horizon
 * (shared with its session) is the client's conservative deadline, which passes before the
 * server could grant the lock to anyone else.
 *
 * <p>Call {@link #fence(Duration)} right before each mutation, and pass the token it returns to
 * the storage's check.
 */
public final class Lease implements AutoCloseable {
    private final Session session;
    private final String lock;
    private final long token;
    private final long sessionId;
    private final TenureEnd previousEnd;
    private final long previousToken;
    private final long grantedAtMs;
    private final Duration ttl;
    private final CompletableFuture<LossReason> lost = new CompletableFuture<>();

    Lease(Session session, Grant grant) {
        this.session = session;
        this.lock = grant.getLock();
        this.token = grant.getToken();
        this.sessionId = grant.getSessionId();
        this.previousEnd = TenureEnd.from(grant.getPreviousEnd());
        this.previousToken = grant.getPreviousToken();
        this.grantedAtMs = grant.getGrantedAtMs();
        this.ttl = Duration.ofMillis(grant.getTtlMs());
    }

    public String lock() {
        return lock;
    }

    public long token() {
        return token;
    }

    public long sessionId() {
        return sessionId;
    }

    /** How the previous tenure of this lock ended: decides whether re-entry must clean up. */
    public TenureEnd previousEnd() {
        return previousEnd;
    }

    /** The previous tenure's token, 0 if none. */
    public long previousToken() {
        return previousToken;
    }

    /** State-machine time of the grant, ms since the epoch. */
    public long grantedAtMs() {
        return grantedAtMs;
    }

    public Duration ttl() {
        return ttl;
    }

    /** The horizon on the session's {@link TimeSource#nanoTime()} scale. */
    public long horizonNanos() {
        return session.liveness().horizonNanos();
    }

    /** Time left before the horizon; zero once lost. */
    public Duration remaining() {
        if (lossReason() != null) {
            return Duration.ZERO;
        }
        long left = horizonNanos() - session.time().nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    public boolean isValid() {
        return lossReason() == null && session.time().nanoTime() - horizonNanos() < 0;
    }

    /**
     * Returns the token if the lease is valid with at least {@code minRemaining} left. With less
     * left, renews now (one keepalive, waiting for its ack at most until the horizon) and checks
     * again.
     *
     * @throws LeaseLostException the lease is lost: do not mutate
     * @throws LeaseExpiringException still valid, but not for {@code minRemaining}
     */
    public long fence(Duration minRemaining) {
        long needNanos = nanos(minRemaining);
        Liveness live = session.liveness();
        for (boolean renewed = false; ; renewed = true) {
            live.checkHorizon(); // a passed horizon is LOST now, not when the timer gets to it
            LossReason reason = lossReason();
            if (reason != null) {
                throw new LeaseLostException(lock, token, reason);
            }
            long left = live.horizonNanos() - session.time().nanoTime();
            if (left <= 0) {
                throw new LeaseLostException(lock, token, LossReason.HORIZON_PASSED);
            }
            if (left >= needNanos) {
                return token;
            }
            // A renewal can give at most the lifetime (TTL − margin): don't ask for more than that.
            if (renewed || needNanos > live.lifetimeNanos()) {
                throw new LeaseExpiringException(lock, token, Duration.ofNanos(left), minRemaining);
            }
            Blocking.join(live.renewNow());
        }
    }

    /** Completes exactly once, when the lease stops being valid, with why. */
    public CompletableFuture<LossReason> lost() {
        return lost.copy();
    }

    /**
     * Compare-and-delete with this session and token. Idempotent; a lease already known lost
     * is not sent again.
     *
     * @throws NotOwnerException the server says the token is no longer the lock's grant, and the
     *     client did not already know
     */
    public void release() {
        Blocking.join(releaseAsync());
    }

    /** {@link #release()}, except that a lease the server already took back is not an error. */
    @Override
    public void close() {
        try {
            release();
        } catch (NotOwnerException alreadyGone) {
            // The lock is not ours either way, which is all close() promises.
        }
    }

    @Override
    public String toString() {
        return "Lease[" + lock + ", token " + token + ", session " + sessionId + "]";
    }

    CompletableFuture<Void> releaseAsync() {
        if (lossReason() != null) {
            return CompletableFuture.completedFuture(null);
        }
        return session.releaseOwn(this);
    }

    /** Returns false if the lease was already lost (the first reason stands). */
    boolean markLost(LossReason reason) {
        if (!lost.complete(reason)) {
            return false;
        }
        session.forget(this, reason);
        return true;
    }

    /** Null while valid. The session's reason counts before its events reach this lease. */
    private LossReason lossReason() {
        LossReason r = lost.getNow(null);
        return r != null ? r : session.liveness().lostReason();
    }

    private static long nanos(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("minRemaining must not be negative: " + d);
        }
        try {
            return d.toNanos();
        } catch (ArithmeticException beyondLong) {
            return Long.MAX_VALUE;
        }
    }
}
