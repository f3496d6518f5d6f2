package dev.tenure.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * All replicated state in one place, shared by the command handlers, the snapshot codec and the
 * invariant checks. {@link #events} is output waiting to be drained, not replicated state.
 *
 * <p>The touched sets record which sessions, locks and keys the current step changed, so that
 * the invariants can be checked after every step at a cost proportional to the step's work.
 */
final class State {
    /**
     * The limits in force. Replicated state: set by a {@link Command.SetLimits} entry of the log
     * and kept in snapshots, so every replica decides every command under the same ones. Until
     * the log records any (a log written before limits travelled through it), the member's own.
     */
    Limits limits;
    /** Whether {@link #limits} and {@link #quotas} came from the log (or a snapshot), not from this member. */
    boolean limitsRecorded;
    /** The principals whose quotas differ from {@code limits.principal()}, from the same entry as {@link #limits}. */
    TreeMap<String, PrincipalLimits> quotas = new TreeMap<>();

    long nowMs;
    /** The fencing token counter: every grant takes the next value, so tokens never repeat or go back. */
    long lastToken;
    /**
     * The revision counter: every {@link Change} takes the next value, so it counts the changes
     * applied since the log began (or since a snapshot of a version that did not store it).
     */
    long revision;
    /** Every stale write rejected so far, for any lock (the per-lock counts live on the locks). */
    long staleWritesRejected;
    /** Locks in their lock delay (derived, not stored: the snapshot decoder recounts it). */
    long delayedLocks;
    /** Acquires queued on every lock (derived: the snapshot decoder recounts it). */
    long waiters;
    /**
     * Leases beyond the first of each lock (a semaphore's or shared holders'), so that locksMax
     * bounds every lease and not only every busy lock (derived: the snapshot decoder recounts it).
     */
    long extraLeases;
    /** What every lock's {@link LockRecord#checkpointBytes()} sums to (derived: recounted on decode). */
    long checkpointBytes;

    /** The bytes of every election value the leases and waiters carry (derived: recounted on decode). */
    long electionValueBytes;

    /** Each principal's share of {@link #checkpointBytes} (derived: recounted on decode). */
    final TreeMap<String, Long> checkpointBytesByPrincipal = new TreeMap<>();
    /** Each principal's locks in a lock delay its leases left (derived: recounted on decode). */
    final TreeMap<String, Long> delaysByPrincipal = new TreeMap<>();

    final SessionTable sessions;
    final LockTable locks = new LockTable();
    final FencedKv kv = new FencedKv();
    final DeadlineIndex deadlines = new DeadlineIndex();
    /** Principals whose opens and resumes are refused: a reload removed them (see {@link Revocations}). */
    final TreeSet<String> barredPrincipals = new TreeSet<>();

    final List<Event> events = new ArrayList<>();
    /**
     * The changes since the host last drained them, when it asked to hear of them (null
     * otherwise): output, like events. The revision counts on either way, so it stays the same on
     * every replica whether or not its host watches.
     */
    @Nullable
    List<Change> changes;

    /** The sessions a step touched, each with its principal: an ended one is no longer in the table. */
    final TreeMap<Long, String> touchedSessions = new TreeMap<>();

    final TreeSet<String> touchedLocks = new TreeSet<>();
    final TreeSet<String> touchedKeys = new TreeSet<>();
    /**
     * The keys changed since the host last drained them, when it asked to hear of them (null
     * otherwise): output, like events, so a host can keep a view of the KV for other threads.
     */
    @Nullable
    TreeSet<String> changedKeys;

    State(Limits limits, long nowMs, long lastToken, long lastSessionId) {
        this.limits = limits;
        this.nowMs = nowMs;
        this.lastToken = lastToken;
        this.sessions = new SessionTable(lastSessionId);
    }

    /** What {@code principal} may hold: its own quota if the ACL gives it one, else the per-principal limits. */
    PrincipalLimits quota(String principal) {
        PrincipalLimits own = quotas.get(principal);
        return own != null ? own : limits.principal();
    }

    /**
     * Counts ({@code sign} 1) or uncounts (-1) what {@code lock} keeps of checkpoints, node-wide and
     * against its checkpoint's writer: called around every change to it, so the two sums stay exact.
     */
    void chargeCheckpoints(LockRecord lock, int sign) {
        long bytes = sign * lock.checkpointBytes();
        checkpointBytes += bytes;
        charge(checkpointBytesByPrincipal, lock.checkpointPrincipal, bytes);
    }

    /** Counts ({@code sign} 1) or uncounts (-1) {@code lock}'s delay against the principal that caused it. */
    void chargeDelay(LockRecord lock, int sign) {
        charge(delaysByPrincipal, lock.delayPrincipal, sign);
    }

    private static void charge(Map<String, Long> byPrincipal, String principal, long amount) {
        if (principal.isEmpty() || amount == 0) {
            return;
        }
        long next = byPrincipal.getOrDefault(principal, 0L) + amount;
        if (next == 0) {
            byPrincipal.remove(principal);
        } else {
            byPrincipal.put(principal, next);
        }
    }

    void touch(SessionRecord s) {
        touchedSessions.put(s.id, s.principal);
    }

    void touch(LockRecord lock) {
        touchedLocks.add(lock.name);
    }

    void touchKey(String key) {
        touchedKeys.add(key);
        if (changedKeys != null) {
            changedKeys.add(key);
        }
    }

    /** Takes the next revision for {@code change} and records it if the host watches. */
    void change(java.util.function.LongFunction<Change> change) {
        long next = ++revision;
        if (changes != null) {
            changes.add(change.apply(next));
        }
    }

    void clearTouched() {
        touchedSessions.clear();
        touchedLocks.clear();
        touchedKeys.clear();
    }

    /** now + delta, saturating: a deadline past the end of time is simply never reached. */
    long nowPlus(long deltaMs) {
        return saturatingAdd(nowMs, deltaMs);
    }

    static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
    }
}
