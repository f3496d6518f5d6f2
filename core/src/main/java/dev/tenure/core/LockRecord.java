package dev.tenure.core;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One lock: at most one {@link LeaseRecord}, a FIFO queue of waiters, and its bounded ownership history.
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
    @Nullable
    LeaseRecord lease;
    /** Manual renewal: the lease expires here unless renewed. NONE for a lease its session keeps alive, or no lease. */
    long renewDeadlineMs = NONE;
    /** maxHold: the lease is revoked here. NONE without maxHold, or no lease. */
    long maxHoldAtMs = NONE;
    // Both are made on first use and the waiters dropped again when the last one leaves: most
    // locks never have a waiter, and a held lock has no history until its first tenure ends
    // (about 100 B a lock, with 10,000 sessions each holding one).
    /** FIFO; bounded by waitersPerLockMax, so removal from the middle is a bounded scan. Null: none. */
    private @Nullable ArrayDeque<Waiter> waiters;
    /** Oldest first; at most historyPerLockMax records. Null: none yet. */
    private @Nullable ArrayDeque<TenureRecord> history;

    TenureEnd lastEnd = TenureEnd.NONE;
    long lastToken;
    /** A lock delay is pending until then: nothing is granted before it. 0: none. */
    long delayUntilMs;
    /** Whose lease's end started the lock delay (empty: none, or a session without a principal); charged for it. */
    String delayPrincipal = "";
    /** Who wrote the last checkpoint (empty: nobody with a principal); charged for all of {@link #checkpointBytes()}. */
    String checkpointPrincipal = "";
    /** The last checkpoint any holder wrote, or null. */
    @Nullable
    Checkpoint checkpoint;

    StaleWrites staleWrites = StaleWrites.NONE;

    /** The current lease of a lock the caller knows is held (a lease deadline or a held set names it). */
    LeaseRecord heldLease() {
        return Objects.requireNonNull(lease, "the state names a lease the lock does not have");
    }

    LockRecord(String name) {
        this.name = name;
    }

    /** Free with nobody waiting and no delay pending; kept only for its history, and the first thing dropped. */
    boolean idle() {
        return lease == null && waiters == null && delayUntilMs == 0;
    }

    /** The waiters, first in line first; read-only. */
    Collection<Waiter> waiters() {
        return waiters == null ? List.of() : Collections.unmodifiableCollection(waiters);
    }

    int waiterCount() {
        return waiters == null ? 0 : waiters.size();
    }

    void addWaiter(Waiter w) {
        if (waiters == null) {
            waiters = new ArrayDeque<>(1);
        }
        waiters.addLast(w);
    }

    /** The first waiter, taken out of the queue; null if none. */
    @Nullable
    Waiter pollWaiter() {
        if (waiters == null) {
            return null;
        }
        Waiter w = waiters.pollFirst();
        if (waiters.isEmpty()) {
            waiters = null;
        }
        return w;
    }

    void removeWaiter(Waiter w) {
        if (waiters != null) {
            waiters.remove(w);
            if (waiters.isEmpty()) {
                waiters = null;
            }
        }
    }

    /** Past tenures, oldest first; read-only. */
    Collection<TenureRecord> history() {
        return history == null ? List.of() : Collections.unmodifiableCollection(history);
    }

    int historySize() {
        return history == null ? 0 : history.size();
    }

    /** The latest past tenure, or null. */
    @Nullable
    TenureRecord lastTenure() {
        return history == null ? null : history.peekLast();
    }

    /** Appends a past tenure, dropping the oldest beyond {@code max}. */
    void addHistory(TenureRecord r, int max) {
        if (history == null) {
            history = new ArrayDeque<>(1);
        }
        history.addLast(r);
        while (history.size() > max) {
            history.removeFirst();
        }
    }

    /**
     * The checkpoint bytes this lock keeps, as {@code checkpointTotalBytesMax} counts them: its
     * last checkpoint, and the one its lease was granted with when that is another (the holder
     * wrote since; the lease keeps the one it was granted with, for a re-entrant acquire's answer).
     * At a grant the lease takes the lock's checkpoint itself, so a grant adds nothing.
     */
    // Identity on purpose: the lease's checkpoint counts once only when it is the lock's very
    // object, taken at the grant; one written since is another checkpoint and counts again.
    @SuppressWarnings("ReferenceEquality")
    long checkpointBytes() {
        long n = checkpoint == null ? 0 : checkpoint.size();
        Checkpoint granted = lease == null ? null : lease.previousCheckpoint();
        return granted == null || granted == checkpoint ? n : n + granted.size();
    }

    long currentToken() {
        return lease == null ? 0 : lease.token();
    }

    /** When the server ends the current lease on its own, or NONE. */
    long leaseEndsAtMs() {
        return Math.min(renewDeadlineMs, maxHoldAtMs);
    }

    @Nullable
    Waiter findWaiter(long sessionId, long requestId) {
        for (Waiter w : waiters()) {
            if (w.is(sessionId, requestId)) {
                return w;
            }
        }
        return null;
    }
}
