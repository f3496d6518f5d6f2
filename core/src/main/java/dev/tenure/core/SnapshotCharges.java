package dev.tenure.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The charges block of a version 7 snapshot, after the limits block: who each lock charges for
 * what it holds beyond its lease, so that a principal's quota counts the same after a restore.
 *
 * <pre>
 * charges  count i32, ascending lock name: name str, delayPrincipal str, checkpointPrincipal str
 * </pre>
 *
 * <p>Only locks that charge someone are listed. A version 6 snapshot has no such block: its locks
 * charge nobody (their delays and checkpoints count against the node's limits only, as they did).
 * What each principal is charged is derived, not stored: counted again here as the block is read.
 */
final class SnapshotCharges {
    private SnapshotCharges() {}

    static void write(SnapshotWriter w, State state) {
        List<LockRecord> charging = new ArrayList<>();
        for (LockRecord lock : state.locks.all()) {
            if (!lock.delayPrincipal.isEmpty() || !lock.checkpointPrincipal.isEmpty()) {
                charging.add(lock);
            }
        }
        w.i32(charging.size());
        for (LockRecord lock : charging) {
            w.string(lock.name);
            w.string(lock.delayPrincipal);
            w.string(lock.checkpointPrincipal);
        }
    }

    static void read(SnapshotReader r, State state) {
        int count = r.count(12);
        String previous = null;
        for (int i = 0; i < count; i++) {
            String name = r.nonNullString();
            if (previous != null && name.compareTo(previous) <= 0) {
                throw SnapshotCodec.corrupt("charges out of order at " + name);
            }
            previous = name;
            LockRecord lock = state.locks.get(name);
            if (lock == null) {
                throw SnapshotCodec.corrupt("charges name unknown lock " + name);
            }
            lock.delayPrincipal = r.nonNullString().intern();
            lock.checkpointPrincipal = r.nonNullString().intern();
        }
        for (LockRecord lock : state.locks.all()) {
            // The node-wide checkpoint bytes were counted as the locks were read; only each
            // principal's share is counted here.
            state.checkpointBytes -= lock.checkpointBytes();
            state.chargeCheckpoints(lock, 1);
            state.chargeDelay(lock, 1);
        }
    }
}
