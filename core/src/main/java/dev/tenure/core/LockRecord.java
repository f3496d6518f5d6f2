package dev.tenure.core;

import java.util.ArrayDeque;

/**
 * One lock: at most one {@link Lease}, a FIFO queue of waiters, and its bounded ownership history.
 *
 * <p>Safety: the lease is a single field, so two leases of one lock cannot coexist; a grant
 * happens only when it is null. {@link #lastEnd} and {@link #lastToken} outlive the history
 * window (even with historyPerLockMax 0) because every grant reports them as the previous tenure.
 *
 * <p>Waiters normally imply a holder. The one exception is a pending lock delay: the lease ended
 * uncleanly, nobody holds the lock, and the waiters stay queued until {@link #delayUntilMs}.
 */
final class LockRecord {
    static final long NONE = Long.MAX_VALUE;

    final String name;
    /** The current lease; null when the lock is free. */
    Lease lease;
    /** Manual renewal: the lease expires here unless renewed. NONE for a lease its session keeps alive, or no lease. */
    long renewDeadlineMs = NONE;
    /** maxHold: the lease is revoked here. NONE without maxHold, or no lease. */
    long maxHoldAtMs = NONE;
    // Both start with one slot, not ArrayDeque's default 16: most locks have no waiter, and a
    // million idle locks would otherwise carry some 128 MB of empty arrays. They grow as needed.
    /** FIFO; bounded by waitersPerLockMax, so removal from the middle is a bounded scan. */
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>(0);
    /** Oldest first; at most historyPerLockMax records. */
    final ArrayDeque<TenureRecord> history = new ArrayDeque<>(0);

    TenureEnd lastEnd = TenureEnd.NONE;
    long lastToken;
    /** A lock delay is pending until then: nothing is granted before it. 0: none. */
    long delayUntilMs;
    /** The last checkpoint any holder wrote, or null. */
    Checkpoint checkpoint;

    StaleWrites staleWrites = StaleWrites.NONE;

    LockRecord(String name) {
        this.name = name;
    }

    /** Free with nobody waiting and no delay pending; kept only for its history, and the first thing dropped. */
    boolean idle() {
        return lease == null && waiters.isEmpty() && delayUntilMs == 0;
    }

    long currentToken() {
        return lease == null ? 0 : lease.token();
    }

    /** When the server ends the current lease on its own, or NONE. */
    long leaseEndsAtMs() {
        return Math.min(renewDeadlineMs, maxHoldAtMs);
    }

    Waiter findWaiter(long sessionId, long requestId) {
        for (Waiter w : waiters) {
            if (w.is(sessionId, requestId)) {
                return w;
            }
        }
        return null;
    }
}
