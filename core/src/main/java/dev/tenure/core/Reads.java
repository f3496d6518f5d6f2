package dev.tenure.core;

import dev.tenure.core.Command.Stats;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.Holder;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.WaiterView;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Status and stats: reads through the log (so linearizable); never cached, never change state. */
final class Reads {
    private final State state;

    Reads(State state) {
        this.state = state;
    }

    /** An unknown lock is simply free with no history: there is nothing to report as an error. */
    Result status(Status c) {
        Rejected bad = Shapes.lockName(c.lock(), state.limits);
        if (bad != null) {
            return bad;
        }
        LockRecord lock = state.locks.get(c.lock());
        if (lock == null) {
            return new LockView(c.lock(), null, List.of(), List.of(), state.nowMs, 0, null, StaleWrites.NONE);
        }
        List<Holder> holders = holders(state, lock);
        List<WaiterView> waiters = new ArrayList<>();
        for (Waiter w : lock.waiters()) {
            SessionRecord s = state.sessions.existing(w.sessionId());
            waiters.add(new WaiterView(w.sessionId(), w.sinceMs(), s.clientName, s.principal, w.shared(), w.value()));
        }
        return new LockView(
                lock.name,
                holders.isEmpty() ? null : holders.get(0),
                List.copyOf(waiters),
                List.copyOf(lock.history()),
                state.nowMs,
                lock.delayUntilMs,
                lock.checkpoint,
                lock.staleWrites,
                List.copyOf(holders),
                lock.permits);
    }

    /** The lock's current leases as a read shows them, in grant order; empty while it is free. */
    static List<Holder> holders(State state, LockRecord lock) {
        List<Holder> holders = new ArrayList<>();
        for (LeaseRecord lease : lock.leases()) {
            SessionRecord s = state.sessions.existing(lease.sessionId());
            // Only a lone lease has deadlines of its own; the lock keeps them for its first lease.
            long endsAtMs = holders.isEmpty() ? lock.leaseEndsAtMs() : LockRecord.NONE;
            holders.add(new Holder(
                    s.id,
                    lease.token(),
                    lease.grantedAtMs(),
                    s.clientName,
                    lease.policy(),
                    endsAtMs,
                    s.principal,
                    lease.shared(),
                    lease.value()));
        }
        return holders;
    }

    /** The lock's first current lease as a read shows it, or null while it is free. */
    static @Nullable Holder holder(State state, LockRecord lock) {
        List<Holder> holders = holders(state, lock);
        return holders.isEmpty() ? null : holders.get(0);
    }

    /**
     * Held locks = tracked - idle - delayed: a lock without a lease is either idle or in its lock
     * delay (only a delay keeps waiters queued on a free lock).
     */
    Result stats(Stats c) {
        long held = state.locks.size() - state.locks.idleCount() - state.delayedLocks;
        return new Result.Stats(
                state.sessions.size(),
                state.locks.size(),
                held,
                state.lastToken,
                state.nowMs,
                state.staleWritesRejected);
    }
}
