package dev.tenure.core;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One lock: its current leases, a FIFO queue of waiters, and its bounded ownership history.
 *
 * <p>Safety: a plain lock ({@link #permits} 1) holds one exclusive lease; a semaphore up to
 * {@link #permits} exclusive leases; a lock held shared any number of shared leases and no
 * exclusive one. {@link #fits} is the one rule a grant must pass, and the invariants check all
 * three shapes after every step. The oldest lease is {@link #lease} (so a plain lock reads as
 * before); the others follow it in grant order, which is token order. {@link #lastEnd} and {@link #lastToken} outlive the history
 * window (even with historyPerLockMax 0) because every grant reports them as the previous tenure.
 *
 * <p>Waiters normally imply a holder. The one exception is a pending lock delay: the lease ended
 * uncleanly, nobody holds the lock, and the waiters stay queued until {@link #delayUntilMs}.
 */
final class LockRecord {
    static final long NONE = Long.MAX_VALUE;

    final String name;
    /** The oldest current lease; null when the lock is free. */
    @Nullable
    LeaseRecord lease;
    /** The current leases after {@link #lease}, oldest first; null: none (a plain lock never has any). */
    private @Nullable ArrayDeque<LeaseRecord> others;
    /**
     * How many exclusive leases the lock admits at once: 1 for a plain lock (and a lock held shared).
     * Set by the acquire that makes a free lock busy; every acquire while it is busy must name it.
     */
    int permits = 1;
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
    long checkpointBytes() {
        return checkpointBytesWith(checkpoint);
    }

    /** {@link #checkpointBytes} if {@code last} were the lock's last checkpoint; each lease counts its own. */
    @SuppressWarnings("ReferenceEquality")
    long checkpointBytesWith(@Nullable Checkpoint last) {
        long n = last == null ? 0 : last.size();
        for (LeaseRecord l : leases()) {
            Checkpoint granted = l.previousCheckpoint();
            n += granted == null || granted == last ? 0 : granted.size();
        }
        return n;
    }

    /** Every current lease, oldest (lowest token) first; read-only. */
    List<LeaseRecord> leases() {
        if (lease == null) {
            return List.of();
        }
        List<LeaseRecord> all = new java.util.ArrayList<>(1 + (others == null ? 0 : others.size()));
        all.add(lease);
        if (others != null) {
            all.addAll(others);
        }
        return all;
    }

    int leaseCount() {
        return lease == null ? 0 : 1 + (others == null ? 0 : others.size());
    }

    /** The lease {@code sessionId} holds, or null: a session holds at most one lease of a lock. */
    @Nullable
    LeaseRecord leaseOf(long sessionId) {
        for (LeaseRecord l : leases()) {
            if (l.sessionId() == sessionId) {
                return l;
            }
        }
        return null;
    }

    /** The current lease granted under {@code token}, or null. */
    @Nullable
    LeaseRecord leaseWithToken(long token) {
        for (LeaseRecord l : leases()) {
            if (l.token() == token) {
                return l;
            }
        }
        return null;
    }

    /** A fenced write's check: {@code token} is one of the lock's current leases. */
    boolean holdsToken(long token) {
        return token != 0 && leaseWithToken(token) != null;
    }

    /** The lock is held shared (every current lease is shared). */
    boolean heldShared() {
        return lease != null && lease.shared();
    }

    /**
     * Whether a lease of this kind may be granted beside the current ones (waiters and a lock
     * delay aside): a shared one while no exclusive lease is held, an exclusive one while fewer
     * than {@link #permits} exclusive leases and no shared one are held.
     */
    boolean fits(boolean shared) {
        if (lease == null) {
            return true;
        }
        return shared ? lease.shared() : !lease.shared() && leaseCount() < permits;
    }

    void addLease(LeaseRecord l) {
        if (lease == null) {
            lease = l;
            return;
        }
        if (others == null) {
            others = new ArrayDeque<>(1);
        }
        others.addLast(l);
    }

    /** Drops a current lease; the next oldest becomes {@link #lease}. */
    void removeLease(LeaseRecord l) {
        if (l.equals(lease)) {
            lease = others == null ? null : others.pollFirst();
        } else if (others != null) {
            others.remove(l);
        }
        if (others != null && others.isEmpty()) {
            others = null;
        }
    }

    /** Replaces a current lease by {@code next} in its place (a downgrade keeps the grant order). */
    void replaceLease(LeaseRecord old, LeaseRecord next) {
        if (old.equals(lease)) {
            lease = next;
            return;
        }
        ArrayDeque<LeaseRecord> rest = Objects.requireNonNull(others, "a lease that is not the first");
        ArrayDeque<LeaseRecord> copy = new ArrayDeque<>(rest.size());
        for (LeaseRecord l : rest) {
            copy.addLast(l.equals(old) ? next : l);
        }
        others = copy;
    }

    /** The first waiter, left in the queue; null if none. */
    @Nullable
    Waiter peekWaiter() {
        return waiters == null ? null : waiters.peekFirst();
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
