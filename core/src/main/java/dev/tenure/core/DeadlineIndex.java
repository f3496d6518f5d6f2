package dev.tenure.core;

import java.util.Collections;
import java.util.NavigableSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Every pending deadline, sorted by (time, kind, session id, request id, lock) so that all
 * replicas fire them in the same order, and so that renewals and expiry cost O(log n) instead of
 * a scan. Session expiry sorts before everything due at the same time: it then ends the
 * session's own leases and waits as a whole, the more accurate answer. A lease's own end (manual
 * deadline or maxHold) comes next, so a waiter whose wait ends at that same moment is granted
 * rather than timed out; a lock delay's end comes last.
 */
final class DeadlineIndex {
    static final int SESSION_EXPIRY = 0;
    static final int LEASE_END = 1;
    static final int WAIT_TIMEOUT = 2;
    static final int LOCK_DELAY_END = 3;

    /** {@code lock} is "" for session and wait deadlines; lease and delay deadlines have session 0. */
    record Deadline(long atMs, int kind, long sessionId, long requestId, String lock) implements Comparable<Deadline> {
        @Override
        public int compareTo(Deadline o) {
            int c = Long.compare(atMs, o.atMs);
            if (c == 0) c = Integer.compare(kind, o.kind);
            if (c == 0) c = Long.compare(sessionId, o.sessionId);
            if (c == 0) c = Long.compare(requestId, o.requestId);
            if (c == 0) c = lock.compareTo(o.lock);
            return c;
        }
    }

    private final TreeSet<Deadline> entries = new TreeSet<>();
    private int sessionEntries;

    void addSession(long sessionId, long atMs) {
        add(new Deadline(atMs, SESSION_EXPIRY, sessionId, 0, ""));
        sessionEntries++;
    }

    void removeSession(long sessionId, long atMs) {
        remove(new Deadline(atMs, SESSION_EXPIRY, sessionId, 0, ""));
        sessionEntries--;
    }

    void addWait(long sessionId, long requestId, long atMs) {
        add(new Deadline(atMs, WAIT_TIMEOUT, sessionId, requestId, ""));
    }

    void removeWait(long sessionId, long requestId, long atMs) {
        remove(new Deadline(atMs, WAIT_TIMEOUT, sessionId, requestId, ""));
    }

    void addLeaseEnd(String lock, long atMs) {
        add(new Deadline(atMs, LEASE_END, 0, 0, lock));
    }

    void removeLeaseEnd(String lock, long atMs) {
        remove(new Deadline(atMs, LEASE_END, 0, 0, lock));
    }

    void addDelayEnd(String lock, long atMs) {
        add(new Deadline(atMs, LOCK_DELAY_END, 0, 0, lock));
    }

    void removeDelayEnd(String lock, long atMs) {
        remove(new Deadline(atMs, LOCK_DELAY_END, 0, 0, lock));
    }

    boolean containsSession(long sessionId, long atMs) {
        return entries.contains(new Deadline(atMs, SESSION_EXPIRY, sessionId, 0, ""));
    }

    boolean containsWait(long sessionId, long requestId, long atMs) {
        return entries.contains(new Deadline(atMs, WAIT_TIMEOUT, sessionId, requestId, ""));
    }

    boolean containsLeaseEnd(String lock, long atMs) {
        return entries.contains(new Deadline(atMs, LEASE_END, 0, 0, lock));
    }

    boolean containsDelayEnd(String lock, long atMs) {
        return entries.contains(new Deadline(atMs, LOCK_DELAY_END, 0, 0, lock));
    }

    /** The earliest deadline if it is due at {@code nowMs}, else null. */
    @Nullable
    Deadline firstDueBy(long nowMs) {
        if (entries.isEmpty() || entries.first().atMs() > nowMs) {
            return null;
        }
        return entries.first();
    }

    long nextMs() {
        return entries.isEmpty() ? Long.MAX_VALUE : entries.first().atMs();
    }

    int size() {
        return entries.size();
    }

    int sessionEntries() {
        return sessionEntries;
    }

    NavigableSet<Deadline> all() {
        return Collections.unmodifiableNavigableSet(entries);
    }

    // A missing or duplicate entry means the index no longer mirrors the state: a session could
    // then outlive its TTL, or expire twice. Stop rather than continue.
    private void add(Deadline d) {
        if (!entries.add(d)) {
            throw new InvariantViolation("deadline already indexed: " + d);
        }
    }

    private void remove(Deadline d) {
        if (!entries.remove(d)) {
            throw new InvariantViolation("deadline not indexed: " + d);
        }
    }
}
