package dev.tenure.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The elections block of a version 9 snapshot, after the barred principals and before the
 * trailer: the values that an election's leases and waiters carry.
 *
 * <pre>
 * elections count i32, ascending lock name (each lock with a valued lease or waiter):
 *   name str, lease value bytes (empty: none, or no lease), waiter count i32 (the lock's own),
 *   FIFO: value bytes (empty: none)
 * </pre>
 *
 * <p>It names locks the locks block has already restored and refuses a name it lacks, a count
 * that is not the lock's, a value over electionValueBytesMax or on a shared or semaphore lease as
 * corruption. A snapshot of version 8 or older has no block: every lease and waiter reads without
 * a value, which is what its build kept.
 */
final class SnapshotElections {
    private SnapshotElections() {}

    /** Whether no lease or waiter carries a value: what a version 8 snapshot can hold. */
    static boolean none(State state) {
        for (LockRecord lock : state.locks.all()) {
            if (valued(lock)) {
                return false;
            }
        }
        return true;
    }

    static void write(SnapshotWriter w, State state) {
        SnapshotLockBlock.write(w, state, SnapshotElections::valued, (out, lock) -> {
            out.bytes(lock.lease == null ? new byte[0] : lock.lease.value().bytes());
            out.i32(lock.waiterCount());
            for (Waiter x : lock.waiters()) {
                out.bytes(x.value().bytes());
            }
        });
    }

    static void read(SnapshotReader r, State state) {
        SnapshotLockBlock.read(r, state, "election values", (in, lock) -> {
            ElectionValue leaseValue = value(in, state);
            if (!leaseValue.isEmpty()) {
                LeaseRecord lease = lock.lease;
                if (lease == null || lock.leaseCount() != 1 || lease.shared() || lock.permits != 1) {
                    throw SnapshotCodec.corrupt("lock " + lock.name + " has a lease value but no lone exclusive lease");
                }
                lock.replaceLease(lease, lease.withValue(leaseValue));
                state.electionValueBytes += leaseValue.size();
            }
            readWaiterValues(in, state, lock);
        });
    }

    private static void readWaiterValues(SnapshotReader r, State state, LockRecord lock) {
        int waiters = r.i32();
        if (waiters != lock.waiterCount()) {
            throw SnapshotCodec.corrupt("lock " + lock.name + " has " + lock.waiterCount() + " waiters, its election "
                    + "values name " + waiters);
        }
        List<Waiter> queue = new ArrayList<>(lock.waiters());
        for (Waiter x : queue) {
            lock.removeWaiter(x);
        }
        for (Waiter x : queue) {
            ElectionValue v = value(r, state);
            if (!v.isEmpty() && x.shared()) {
                throw SnapshotCodec.corrupt("lock " + lock.name + " has a shared waiter with a value");
            }
            lock.addWaiter(
                    new Waiter(x.sessionId(), x.requestId(), x.sinceMs(), x.deadlineMs(), x.policy(), x.shared(), v));
            state.electionValueBytes += v.size();
        }
    }

    private static ElectionValue value(SnapshotReader r, State state) {
        byte[] b = r.bytes();
        if (b.length > state.limits.electionValueBytesMax()) {
            throw SnapshotCodec.corrupt("election value of " + b.length + " bytes, over electionValueBytesMax "
                    + state.limits.electionValueBytesMax());
        }
        return ElectionValue.of(b);
    }

    private static boolean valued(LockRecord lock) {
        for (LeaseRecord l : lock.leases()) {
            if (!l.value().isEmpty()) {
                return true;
            }
        }
        for (Waiter x : lock.waiters()) {
            if (!x.value().isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
