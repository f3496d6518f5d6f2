package dev.tenure.core;

import java.util.Collections;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Every pending deadline, sorted by (time, kind, session id, request id) so that all replicas
 * fire them in the same order, and so that renewals and expiry cost O(log n) instead of a scan.
 * Session expiry sorts before a wait timeout due at the same time: the expiry then resolves the
 * session's own waits as SESSION_LOST, the more accurate answer.
 */
final class DeadlineIndex {
    static final int SESSION_EXPIRY = 0;
    static final int WAIT_TIMEOUT = 1;

    record Deadline(long atMs, int kind, long sessionId, long requestId) implements Comparable<Deadline> {
        @Override
        public int compareTo(Deadline o) {
            int c = Long.compare(atMs, o.atMs);
            if (c == 0) c = Integer.compare(kind, o.kind);
            if (c == 0) c = Long.compare(sessionId, o.sessionId);
            if (c == 0) c = Long.compare(requestId, o.requestId);
            return c;
        }
    }

    private final TreeSet<Deadline> entries = new TreeSet<>();
    private int sessionEntries;

    void addSession(long sessionId, long atMs) {
        add(new Deadline(atMs, SESSION_EXPIRY, sessionId, 0));
        sessionEntries++;
    }

    void removeSession(long sessionId, long atMs) {
        remove(new Deadline(atMs, SESSION_EXPIRY, sessionId, 0));
        sessionEntries--;
    }

    void addWait(long sessionId, long requestId, long atMs) {
        add(new Deadline(atMs, WAIT_TIMEOUT, sessionId, requestId));
    }

    void removeWait(long sessionId, long requestId, long atMs) {
        remove(new Deadline(atMs, WAIT_TIMEOUT, sessionId, requestId));
    }

    boolean containsSession(long sessionId, long atMs) {
        return entries.contains(new Deadline(atMs, SESSION_EXPIRY, sessionId, 0));
    }

    boolean containsWait(long sessionId, long requestId, long atMs) {
        return entries.contains(new Deadline(atMs, WAIT_TIMEOUT, sessionId, requestId));
    }

    /** The earliest deadline if it is due at {@code nowMs}, else null. */
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
