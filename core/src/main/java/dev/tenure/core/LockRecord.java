package dev.tenure.core;

import java.util.ArrayDeque;

/**
 * One lock: at most one {@link Lease}, a FIFO queue of waiters, and its bounded ownership history.
 *
 * <p>Safety: the lease is a single field, so two leases of one lock cannot coexist; a grant
 * happens only when it is null. {@link #lastEnd} and {@link #lastToken} outlive the history
 * window (even with historyPerLockMax 0) because every grant reports them as the previous tenure.
 */
final class LockRecord {
    final String name;
    /** The current lease; null when the lock is free. */
    Lease lease;
    /** FIFO; bounded by waitersPerLockMax, so removal from the middle is a bounded scan. */
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Oldest first; at most historyPerLockMax records. */
    final ArrayDeque<TenureRecord> history = new ArrayDeque<>();

    TenureEnd lastEnd = TenureEnd.NONE;
    long lastToken;

    LockRecord(String name) {
        this.name = name;
    }

    /** Free with nobody waiting; kept only for its history, and the first thing dropped. */
    boolean idle() {
        return lease == null && waiters.isEmpty();
    }

    long currentToken() {
        return lease == null ? 0 : lease.token();
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
