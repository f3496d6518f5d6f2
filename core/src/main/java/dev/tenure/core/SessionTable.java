package dev.tenure.core;

import java.util.Collection;
import java.util.Collections;
import java.util.TreeMap;

/**
 * Live sessions by id. Ids come from a counter in the replicated state, so they are never
 * reused, not even across snapshots: a request from an ended session can never be mistaken for
 * one from a newer session.
 */
final class SessionTable {
    private final TreeMap<Long, SessionRecord> byId = new TreeMap<>();
    private long lastSessionId;

    SessionTable(long lastSessionId) {
        this.lastSessionId = lastSessionId;
    }

    SessionRecord get(long id) {
        return byId.get(id);
    }

    int size() {
        return byId.size();
    }

    long lastSessionId() {
        return lastSessionId;
    }

    /** Ascending by id; read-only. */
    Collection<SessionRecord> all() {
        return Collections.unmodifiableCollection(byId.values());
    }

    SessionRecord open(long ttlMs, String clientName, long deadlineMs, SecretHash secretHash) {
        SessionRecord s =
                new SessionRecord(++lastSessionId, ttlMs, clientName, secretHash, deadlineMs, 1, new RequestCache());
        byId.put(s.id, s);
        return s;
    }

    /** For snapshot restore: the codec has checked that ids ascend and stay within lastSessionId. */
    void restore(SessionRecord s) {
        byId.put(s.id, s);
    }

    void remove(long id) {
        byId.remove(id);
    }
}
