package dev.tenure.core;

import java.util.Collection;
import java.util.Collections;
import java.util.TreeMap;

/**
 * The built-in fenced key-value store. The fence check itself lives in {@link KvCommands}; this
 * class only stores entries. Values are copied in and out, so no caller can change the
 * replicated state through an array it still holds.
 */
final class FencedKv {

    /** One stored value and the fence it was written under (token 0 and lock null when unfenced). */
    record Entry(String key, byte[] value, long token, String lock, long writtenAtMs) {}

    private final TreeMap<String, Entry> byKey = new TreeMap<>();

    Entry get(String key) {
        return byKey.get(key);
    }

    boolean contains(String key) {
        return byKey.containsKey(key);
    }

    int size() {
        return byKey.size();
    }

    void put(Entry e) {
        byKey.put(e.key(), e);
    }

    void remove(String key) {
        byKey.remove(key);
    }

    /** Ascending by key; read-only. */
    Collection<Entry> all() {
        return Collections.unmodifiableCollection(byKey.values());
    }
}
