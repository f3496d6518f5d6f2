package dev.tenure.core;

import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Lock records by name, plus the order in which free locks became idle.
 *
 * <p>Records are created on first grant and kept while idle only for their history; when more
 * than idleLocksMax are idle the oldest idle record is dropped. Dropping is safe for fencing:
 * tokens come from the global counter, so a re-created lock still gets a token above every
 * token it ever had; only previousEnd/previousToken and the history are forgotten.
 */
final class LockTable {
    private final TreeMap<String, LockRecord> byName = new TreeMap<>();
    /** Idle locks, oldest first (insertion order; a LinkedHashMap iterates in defined order). */
    private final LinkedHashMap<String, LockRecord> idle = new LinkedHashMap<>();

    @Nullable
    LockRecord get(String name) {
        return byName.get(name);
    }

    /**
     * The lock called {@code name}, which the state says exists: a deadline, a wait or a session's
     * held set names it, and a lock leaves the table only once nothing does.
     */
    LockRecord existing(String name) {
        return Objects.requireNonNull(byName.get(name), "the state names a lock it does not have");
    }

    LockRecord getOrCreate(String name) {
        return byName.computeIfAbsent(name, LockRecord::new);
    }

    int size() {
        return byName.size();
    }

    int idleCount() {
        return idle.size();
    }

    boolean isInIdleOrder(String name) {
        return idle.containsKey(name);
    }

    /** Ascending by name; read-only. */
    Collection<LockRecord> all() {
        return Collections.unmodifiableCollection(byName.values());
    }

    /**
     * Ascending by name from {@code name} (included when {@code inclusive}); read-only. A view, not
     * a copy: a page of the listing walks only what it returns.
     */
    Collection<LockRecord> from(String name, boolean inclusive) {
        return Collections.unmodifiableCollection(
                byName.tailMap(name, inclusive).values());
    }

    /** Oldest first; read-only. */
    Collection<String> idleOrder() {
        return Collections.unmodifiableCollection(idle.keySet());
    }

    void markBusy(LockRecord lock) {
        idle.remove(lock.name);
    }

    /** Locks that are held, waited for or in their lock delay: what locksMax bounds. */
    int busyCount() {
        return byName.size() - idle.size();
    }

    /** Returns the record dropped to respect idleLocksMax, or null. */
    @Nullable
    LockRecord markIdle(LockRecord lock, int idleLocksMax) {
        idle.put(lock.name, lock);
        if (idle.size() <= idleLocksMax) {
            return null;
        }
        Iterator<String> oldest = idle.keySet().iterator();
        String dropped = oldest.next();
        oldest.remove();
        return byName.remove(dropped);
    }

    /** For snapshot restore. */
    void restore(LockRecord lock) {
        byName.put(lock.name, lock);
    }

    /** For snapshot restore, in the snapshot's idle order. */
    void restoreIdle(String name) {
        LockRecord lock = byName.get(name);
        if (lock == null || idle.containsKey(name)) {
            throw new IllegalArgumentException("snapshot idle order names unknown or repeated lock " + name);
        }
        idle.put(name, lock);
    }
}
