package dev.tenure.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The built-in fenced key-value store. The fence check itself lives in {@link KvCommands}; this
 * class stores entries and keeps what the KV limits count: its bytes in all, and the keys and
 * bytes of each principal that wrote last. Values are copied in and out, so no caller can change
 * the replicated state through an array it still holds.
 *
 * <p>The counts are derived, not stored: a snapshot holds the entries, and loading them through
 * {@link #put} counts them again, so the counts cannot disagree with the entries they count.
 */
final class FencedKv {

    /**
     * One stored value and the fence it was written under (token 0 and lock null when unfenced).
     * {@code principal}: who wrote it last (empty without client certificates); its keys and
     * bytes count against that principal's quota. {@code version}: 1 when the key was created, one
     * more per put since (a key deleted and written again starts at 1). {@code ephemeralSessionId}:
     * the session whose end deletes the key, 0 for a key that outlives its writer.
     */
    // The bytes are an opaque payload the core keeps and hands back as given; wrapping them in an
    // immutable type would cost a copy per write. Nothing compares these records by value.
    @SuppressWarnings("ArrayRecordComponent")
    record Entry(
            String key,
            byte[] value,
            long token,
            @Nullable String lock,
            long writtenAtMs,
            String principal,
            long version,
            long ephemeralSessionId) {
        boolean ephemeral() {
            return ephemeralSessionId != 0;
        }
    }

    /** What one principal's keys hold. */
    record Usage(int keys, long bytes) {
        static final Usage NONE = new Usage(0, 0);

        Usage plus(int keys, long bytes) {
            return new Usage(this.keys + keys, this.bytes + bytes);
        }
    }

    private final TreeMap<String, Entry> byKey = new TreeMap<>();
    /** Principals with at least one key; none for the keys written without a principal. */
    private final TreeMap<String, Usage> byPrincipal = new TreeMap<>();

    /** Each session's ephemeral keys, ascending (derived from the entries, like the counts). */
    private final TreeMap<Long, TreeSet<String>> ephemeralBySession = new TreeMap<>();

    private long bytes;

    /**
     * What {@code e} counts against {@code kvBytesMax}: its key's, value's and fencing lock name's
     * bytes, UTF-8 (what a client sends and a snapshot stores). Its record and map entry are not
     * counted here: {@code kvKeysMax} bounds how many there are.
     */
    static long bytes(Entry e) {
        return Shapes.utf8Length(e.key()) + e.value().length + (e.lock() == null ? 0 : Shapes.utf8Length(e.lock()));
    }

    @Nullable
    Entry get(String key) {
        return byKey.get(key);
    }

    boolean contains(String key) {
        return byKey.containsKey(key);
    }

    int size() {
        return byKey.size();
    }

    /** The bytes of every entry, as {@link #bytes(Entry)} counts them. */
    long bytes() {
        return bytes;
    }

    /** The keys and bytes whose last write was {@code principal}'s. */
    Usage usage(String principal) {
        return byPrincipal.getOrDefault(principal, Usage.NONE);
    }

    /** Principals that hold at least one key, ascending; read-only (for the invariants). */
    Set<String> principals() {
        return Collections.unmodifiableSet(byPrincipal.keySet());
    }

    /** The ephemeral keys of {@code sessionId}, ascending; a copy, so the caller may delete them as it goes. */
    List<String> ephemeralKeys(long sessionId) {
        TreeSet<String> keys = ephemeralBySession.get(sessionId);
        return keys == null ? List.of() : new ArrayList<>(keys);
    }

    int ephemeralCount(long sessionId) {
        TreeSet<String> keys = ephemeralBySession.get(sessionId);
        return keys == null ? 0 : keys.size();
    }

    /** Sessions that hold at least one ephemeral key, ascending; read-only (for the invariants). */
    Set<Long> ephemeralSessions() {
        return Collections.unmodifiableSet(ephemeralBySession.keySet());
    }

    void put(Entry e) {
        Entry old = byKey.put(e.key(), e);
        if (old != null) {
            count(old, -1);
        }
        count(e, 1);
    }

    void remove(String key) {
        Entry old = byKey.remove(key);
        if (old != null) {
            count(old, -1);
        }
    }

    /** Ascending by key from {@code key} (included); read-only, a view. */
    Collection<Entry> from(String key) {
        return Collections.unmodifiableCollection(byKey.tailMap(key, true).values());
    }

    /** Ascending by key; read-only. */
    Collection<Entry> all() {
        return Collections.unmodifiableCollection(byKey.values());
    }

    private void count(Entry e, int sign) {
        if (e.ephemeral()) {
            index(e, sign);
        }
        long b = bytes(e);
        bytes += sign * b;
        if (!e.principal().isEmpty()) {
            Usage u = usage(e.principal()).plus(sign, sign * b);
            if (u.keys() == 0) {
                byPrincipal.remove(e.principal());
            } else {
                byPrincipal.put(e.principal(), u);
            }
        }
    }

    private void index(Entry e, int sign) {
        if (sign > 0) {
            ephemeralBySession
                    .computeIfAbsent(e.ephemeralSessionId(), id -> new TreeSet<>())
                    .add(e.key());
            return;
        }
        TreeSet<String> keys = ephemeralBySession.get(e.ephemeralSessionId());
        if (keys != null && keys.remove(e.key()) && keys.isEmpty()) {
            ephemeralBySession.remove(e.ephemeralSessionId());
        }
    }
}
