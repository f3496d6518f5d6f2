package dev.tenure.core;

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
        SnapshotLockBlock.write(
                w,
                state,
                lock -> !lock.delayPrincipal.isEmpty() || !lock.checkpointPrincipal.isEmpty(),
                (out, lock) -> {
                    out.string(lock.delayPrincipal);
                    out.string(lock.checkpointPrincipal);
                });
    }

    static void read(SnapshotReader r, State state) {
        SnapshotLockBlock.read(r, state, "charges", (in, lock) -> {
            lock.delayPrincipal = in.nonNullString().intern();
            lock.checkpointPrincipal = in.nonNullString().intern();
        });
        for (LockRecord lock : state.locks.all()) {
            // The node-wide checkpoint bytes were counted as the locks were read; only each
            // principal's share is counted here.
            state.checkpointBytes -= lock.checkpointBytes();
            state.chargeCheckpoints(lock, 1);
            state.chargeDelay(lock, 1);
        }
    }
}
