package dev.tenure.core;

import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Rejected;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Proclaim: an election's leader replaces the value its lease publishes. An election is a lock
 * whose leases carry a value: a campaign is an exclusive {@link Command.Acquire} with one, a
 * resignation a release, so its leader is granted, fenced, bounded and handed over by the lock's
 * own rules; only the value is the election's.
 */
final class ElectionCommands {
    private final State state;

    ElectionCommands(State state) {
        this.state = state;
    }

    Result proclaim(Command.Proclaim c) {
        Rejected bad = Shapes.first(
                Shapes.lockName(c.lock(), state.limits),
                Shapes.requestId(c.requestId()),
                Shapes.electionValue(c.value(), 1, false, state.limits));
        if (bad != null) {
            return bad;
        }
        return Requests.once(state, c.sessionId(), c.requestId(), s -> decideProclaim(s, c));
    }

    /** Refuses {@code added} more election value bytes beyond electionValueTotalBytesMax; null if they fit. */
    static @Nullable Rejected valuesFull(State state, long added) {
        long max = state.limits.electionValueTotalBytesMax();
        if (added > 0 && state.electionValueBytes + added > max) {
            return new Rejected(
                    Code.LIMIT,
                    "electionValueTotalBytesMax (" + max + ") reached: the leases and waiters carry "
                            + state.electionValueBytes + " election value bytes and this adds " + added,
                    0);
        }
        return null;
    }

    /**
     * Owner-bound as a release is: only the session holding the current grant under {@code token}
     * replaces the value, so a deposed leader (paused past its lease, or resigned) cannot publish
     * over its successor.
     */
    private Result decideProclaim(SessionRecord s, Command.Proclaim c) {
        LockRecord lock = state.locks.get(c.lock());
        LeaseRecord lease = LockCommands.ownLease(lock, c.token(), s);
        if (lease == null) {
            return LockCommands.notOwner(lock, c.lock(), c.token(), s);
        }
        Objects.requireNonNull(lock, "a lock with a lease exists");
        if (lease.shared() || lock.permits != 1) {
            return Shapes.invalid("lock " + lock.name + " is held shared or as a semaphore: an election is exclusive");
        }
        Rejected full = valuesFull(state, c.value().size() - lease.value().size());
        if (full != null) {
            return full;
        }
        state.electionValueBytes += c.value().size() - lease.value().size();
        LeaseRecord proclaimed = lease.withValue(c.value());
        lock.replaceLease(lease, proclaimed);
        state.touch(lock);
        // Every proclaim is a change, even of an equal value: an observer reads the term's values
        // in log order and decides itself what is new to it.
        state.change(r -> Change.leaseChanged(r, Change.Kind.PROCLAIMED, lock, proclaimed, state.nowMs));
        return new Ok();
    }
}
