package dev.tenure.core;

import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The client names and principals of a snapshot, written once each in a table (ascending) and
 * referred to by their index: every session, history record and key names one, most of them the
 * same few (a client process opens all its sessions under one name; a principal is a
 * certificate), and each written out in full would make an image of a state many times the
 * heap its shared strings take. Snapshots of versions 4 and 5 have no table: their names are
 * written where they are used ({@link #inline()}).
 */
final class SnapshotNames {
    /** Ascending; null when names are inline. */
    private final String @Nullable [] table;

    private final @Nullable SortedMap<String, Integer> index;

    private SnapshotNames(String @Nullable [] table, @Nullable SortedMap<String, Integer> index) {
        this.table = table;
        this.index = index;
    }

    /** Every client name and principal {@code state} holds. */
    static SnapshotNames of(State state) {
        TreeSet<String> names = new TreeSet<>();
        for (SessionRecord s : state.sessions.all()) {
            names.add(s.clientName);
            names.add(s.principal);
        }
        for (LockRecord lock : state.locks.all()) {
            for (TenureRecord t : lock.history()) {
                names.add(t.forcedByClient());
                names.add(t.principal());
                names.add(t.forcedByPrincipal());
            }
        }
        for (FencedKv.Entry e : state.kv.all()) {
            names.add(e.principal());
        }
        TreeMap<String, Integer> index = new TreeMap<>();
        for (String name : names) {
            index.put(name, index.size());
        }
        return new SnapshotNames(names.toArray(new String[0]), index);
    }

    /** For snapshots without a table: every name is read where it is used. */
    static SnapshotNames inline() {
        return new SnapshotNames(null, null);
    }

    /** The table: its size, then each name, ascending. */
    void writeTable(SnapshotWriter w) {
        // Only a table made by of() is written; read ones (readTable, inline) are only read from.
        String[] names = Objects.requireNonNull(table, "a written table is made by of()");
        w.i32(names.length);
        for (String name : names) {
            w.string(name);
        }
    }

    void write(SnapshotWriter w, String name) {
        // of() indexed every name the state holds, and only such names are written.
        SortedMap<String, Integer> byName = Objects.requireNonNull(index, "a written table is made by of()");
        w.i32(Objects.requireNonNull(byName.get(name), "every name written is in the state of() saw"));
    }

    /**
     * Reads a table written by {@link #writeTable}; its names must ascend, so that a snapshot has
     * one encoding. Each name is interned, as the records that name it intern theirs.
     */
    static SnapshotNames readTable(SnapshotReader r) {
        String[] table = new String[r.count(4)];
        for (int i = 0; i < table.length; i++) {
            table[i] = r.nonNullString().intern();
            if (i > 0 && table[i].compareTo(table[i - 1]) <= 0) {
                throw SnapshotCodec.corrupt("names out of order at " + table[i]);
            }
        }
        return new SnapshotNames(table, null);
    }

    String read(SnapshotReader r) {
        if (table == null) {
            return r.nonNullString();
        }
        int i = r.i32();
        if (i < 0 || i >= table.length) {
            throw SnapshotCodec.corrupt("name index " + i + " of " + table.length);
        }
        return table[i];
    }
}
