package dev.tenure.core;

import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Live sessions by id. Ids come from a counter in the replicated state, so they are never
 * reused, not even across snapshots: a request from an ended session can never be mistaken for
 * one from a newer session.
 */
final class SessionTable {
    private final TreeMap<Long, SessionRecord> byId = new TreeMap<>();
    /** The live sessions of each principal (none for sessions without one): what its limits count. */
    private final TreeMap<String, TreeSet<Long>> byPrincipal = new TreeMap<>();

    private long lastSessionId;
    /** Live sessions with a principal, counted apart from the index so the invariants can compare the two. */
    private int withPrincipal;

    SessionTable(long lastSessionId) {
        this.lastSessionId = lastSessionId;
    }

    @Nullable
    SessionRecord get(long id) {
        return byId.get(id);
    }

    /**
     * The session {@code id}, which the state says exists: a lease, a waiter or a deadline names
     * it, and a session's leases and waits end before it leaves the table.
     */
    SessionRecord existing(long id) {
        return Objects.requireNonNull(byId.get(id), "the state names a session it does not have");
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

    SessionRecord open(long ttlMs, String clientName, String principal, long deadlineMs, SecretHash secretHash) {
        SessionRecord s = new SessionRecord(
                ++lastSessionId, ttlMs, clientName, principal, secretHash, deadlineMs, 1, new RequestCache());
        add(s);
        return s;
    }

    /** For snapshot restore: the codec has checked that ids ascend and stay within lastSessionId. */
    void restore(SessionRecord s) {
        add(s);
    }

    void remove(long id) {
        SessionRecord s = byId.remove(id);
        if (s != null && !s.principal.isEmpty()) {
            withPrincipal--;
            TreeSet<Long> ids =
                    Objects.requireNonNull(byPrincipal.get(s.principal), "a session with a principal is indexed by it");
            ids.remove(id);
            if (ids.isEmpty()) {
                byPrincipal.remove(s.principal);
            }
        }
    }

    /** The ids of {@code principal}'s live sessions, ascending; read-only. */
    Set<Long> of(String principal) {
        TreeSet<Long> ids = byPrincipal.get(principal);
        return ids == null ? Set.of() : Collections.unmodifiableSet(ids);
    }

    /** How many live sessions have a principal (for the invariants). */
    int withPrincipal() {
        return withPrincipal;
    }

    /** Principals with live sessions, ascending; read-only (for the invariants). */
    Set<String> principals() {
        return Collections.unmodifiableSet(byPrincipal.keySet());
    }

    private void add(SessionRecord s) {
        byId.put(s.id, s);
        if (!s.principal.isEmpty()) {
            withPrincipal++;
            byPrincipal.computeIfAbsent(s.principal, p -> new TreeSet<>()).add(s.id);
        }
    }
}
