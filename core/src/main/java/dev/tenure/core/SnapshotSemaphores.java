package dev.tenure.core;

import java.util.ArrayList;
import java.util.List;

/**
 * A lock record's version 8 block: what a lock with several leases adds to the single lease and
 * the FIFO waiters that versions 4 to 7 write. It follows the lock's stale-write counts:
 *
 * <pre>
 * permits i32, [hasLease: leaseShared u8], others count i32, oldest first:
 *   sessionId i64, token i64, grantedAtMs i64, previousEnd u8, previousToken i64,
 *   previousCheckpoint ckpt, policy, shared u8,
 * waiter shared flags: one u8 per waiter, in the waiters' FIFO order
 * </pre>
 *
 * A lock from an older snapshot has permits 1, its lease exclusive, no other lease and no shared
 * waiter: what every lock was before. Another lease's checkpoint that equals the lock's is read as
 * that very object, as {@link SnapshotCodec} does for the first lease. A lock's permits are checked
 * against permitsMax by the invariants once the snapshot is read, as the limits come after the locks.
 */
final class SnapshotSemaphores {
    private SnapshotSemaphores() {}

    /** Whether every lock reads the same without the block: what a version 7 snapshot can hold. */
    static boolean plain(State state) {
        for (LockRecord lock : state.locks.all()) {
            if (lock.permits != 1 || lock.leaseCount() > 1 || lock.heldShared()) {
                return false;
            }
            for (Waiter w : lock.waiters()) {
                if (w.shared()) {
                    return false;
                }
            }
        }
        return true;
    }

    static void write(SnapshotWriter w, LockRecord lock) {
        w.i32(lock.permits);
        List<LeaseRecord> leases = lock.leases();
        if (!leases.isEmpty()) {
            w.bool(leases.get(0).shared());
        }
        w.i32(Math.max(0, leases.size() - 1));
        for (LeaseRecord l : leases.subList(Math.min(1, leases.size()), leases.size())) {
            w.i64(l.sessionId());
            w.i64(l.token());
            w.i64(l.grantedAtMs());
            w.u8(SnapshotCodec.index(SnapshotCodec.ENDS, l.previousEnd()));
            w.i64(l.previousToken());
            SnapshotCodec.writeCheckpoint(w, l.previousCheckpoint());
            SnapshotCodec.writePolicy(w, l.policy());
            w.bool(l.shared());
        }
        for (Waiter x : lock.waiters()) {
            w.bool(x.shared());
        }
    }

    /** Reads the block into a lock whose lease, waiters and checkpoint are already read. */
    static void read(SnapshotReader r, State state, LockRecord lock) {
        lock.permits = r.i32();
        // The upper bound is the permitsMax in force, which the limits block (read later) sets:
        // the invariants check it once the whole snapshot is read.
        if (lock.permits < 1) {
            throw SnapshotCodec.corrupt("lock " + lock.name + " permits " + lock.permits);
        }
        LeaseRecord first = lock.lease;
        if (first != null && r.bool()) {
            lock.lease = first.downgraded();
        }
        int others = r.count(50);
        if (others > 0 && first == null) {
            throw SnapshotCodec.corrupt("free lock " + lock.name + " has " + others + " other leases");
        }
        for (int i = 0; i < others; i++) {
            long sessionId = r.i64();
            long token = r.i64();
            long grantedAtMs = r.i64();
            TenureEnd previousEnd = SnapshotCodec.end(r);
            long previousToken = r.i64();
            Checkpoint ckpt = SnapshotCodec.readCheckpoint(r);
            if (ckpt != null && ckpt.equals(lock.checkpoint)) {
                ckpt = lock.checkpoint;
            }
            Policy policy = SnapshotCodec.readPolicy(r);
            boolean shared = r.bool();
            SessionRecord s = SnapshotCodec.sessionOf(state, sessionId);
            if (s.holds(lock.name)) {
                throw SnapshotCodec.corrupt("session " + sessionId + " holds lock " + lock.name + " twice");
            }
            lock.addLease(new LeaseRecord(
                    sessionId,
                    token,
                    grantedAtMs,
                    previousEnd,
                    previousToken,
                    ckpt,
                    policy,
                    shared,
                    ElectionValue.NONE));
            s.addHeld(lock.name);
            state.extraLeases++;
        }
        List<Waiter> waiters = new ArrayList<>(lock.waiters());
        for (Waiter x : waiters) {
            lock.removeWaiter(x);
        }
        for (Waiter x : waiters) {
            lock.addWaiter(new Waiter(x.sessionId(), x.requestId(), x.sinceMs(), x.deadlineMs(), x.policy(), r.bool()));
        }
    }
}
