package dev.tenure.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

/**
 * The frame of a snapshot block that adds fields to some of the locks the locks block has
 * already restored (the charges block, the elections block):
 *
 * <pre>
 * block  count i32, ascending lock name (only the locks the block lists): name str, the block's fields
 * </pre>
 *
 * <p>Reading refuses, as corruption, a count the input cannot hold, a name out of ascending order
 * (so every writer of the same state writes the same bytes) and a name the locks block lacks.
 */
final class SnapshotLockBlock {
    /** Each entry is a name (4 length bytes at least) and at least 8 bytes of fields. */
    private static final int ENTRY_BYTES_MIN = 12;

    private SnapshotLockBlock() {}

    /** Writes the locks {@code listed} picks, in name order, each as its name and then {@code fields}. */
    static void write(
            SnapshotWriter w,
            State state,
            Predicate<LockRecord> listed,
            BiConsumer<SnapshotWriter, LockRecord> fields) {
        List<LockRecord> locks = new ArrayList<>();
        for (LockRecord lock : state.locks.all()) {
            if (listed.test(lock)) {
                locks.add(lock);
            }
        }
        w.i32(locks.size());
        for (LockRecord lock : locks) {
            w.string(lock.name);
            fields.accept(w, lock);
        }
    }

    /** Reads a block {@link #write} wrote; {@code block} names it in the corruption messages. */
    static void read(SnapshotReader r, State state, String block, BiConsumer<SnapshotReader, LockRecord> fields) {
        int count = r.count(ENTRY_BYTES_MIN);
        String previous = null;
        for (int i = 0; i < count; i++) {
            String name = r.nonNullString();
            if (previous != null && name.compareTo(previous) <= 0) {
                throw SnapshotCodec.corrupt(block + " out of order at " + name);
            }
            previous = name;
            LockRecord lock = state.locks.get(name);
            if (lock == null) {
                throw SnapshotCodec.corrupt(block + " name unknown lock " + name);
            }
            fields.accept(r, lock);
        }
    }
}
