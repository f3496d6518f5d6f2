package dev.tenure.core;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CancelWait;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** Acquire, cancel a wait, release, and time out a wait. */
final class LockCommands {
    private final State state;
    private final LeaseLifecycle lifecycle;

    LockCommands(State state, LeaseLifecycle lifecycle) {
        this.state = state;
        this.lifecycle = lifecycle;
    }

    Result acquire(Acquire c) {
        Rejected bad = Shapes.first(
                Shapes.lockName(c.lock(), state.limits),
                Shapes.requestId(c.requestId()),
                Shapes.policy(c.policy(), state.limits),
                c.attempt() < 0 ? Shapes.invalid("attempt must not be negative, was " + c.attempt()) : null);
        if (bad != null) {
            return bad;
        }
        SessionRecord s = state.sessions.get(c.sessionId());
        if (s == null) {
            return Requests.sessionLost(c.sessionId());
        }
        Result r = Requests.replay(state, s, c.requestId());
        if (r == null) {
            r = decideAcquire(s, c);
            if (!(r instanceof Queued)) { // enqueue already remembered the pending wait
                Requests.remember(state, s, c.requestId(), Outcome.settled(r));
            }
        }
        s.requests.attempted(c.requestId(), c.attempt());
        return r;
    }

    private Result decideAcquire(SessionRecord s, Acquire c) {
        LockRecord lock = state.locks.get(c.lock());
        LeaseRecord lease = lock == null ? null : lock.lease;
        if (lease != null && lease.sessionId() == s.id) {
            Objects.requireNonNull(lock, "a lock with a lease exists");
            if (lease.policy().bounded()) {
                // Its deadline (maxHold, manual lease TTL) runs from the first grant; handed out
                // again, the new holder's horizon would start from the new request and outlive it.
                return new Rejected(
                        Code.HELD,
                        "lock " + lock.name + " is held by this session (token " + lease.token()
                                + ") under a lease with its own deadline, which is not re-entrant",
                        lease.token());
            }
            // Re-entrant acquire: the same lease, not a new token. A second token would make the
            // first one stale while the same holder may still be writing with it.
            return new Granted(lease.grant(lock.name, s.ttlMs));
        }
        Long waiting = s.waitsByLock.get(c.lock());
        if (waiting != null) {
            return Shapes.invalid(
                    "session " + s.id + " already waits for lock " + c.lock() + " under request " + waiting);
        }
        boolean delayed = lock != null && lock.delayUntilMs != 0;
        if (lease == null && !delayed) {
            Rejected full = Shapes.first(leasesFull(s), locksFull());
            return full != null ? full : new Granted(lifecycle.grant(state.locks.getOrCreate(c.lock()), s, c.policy()));
        }
        Objects.requireNonNull(lock, "a lock that is held or in its delay exists");
        if (c.waitMs() == 0) {
            if (delayed) {
                return new Rejected(
                        Code.HELD,
                        "lock " + lock.name + " is free but in its lock delay until " + lock.delayUntilMs
                                + " ms (the previous tenure, token " + lock.lastToken + ", ended " + lock.lastEnd
                                + ")",
                        0);
            }
            long token = Objects.requireNonNull(lease, "a lock neither free nor delayed is held")
                    .token();
            return new Rejected(Code.HELD, "lock " + lock.name + " is held (token " + token + ")", token);
        }
        if (lock.waiterCount() >= state.limits.waitersPerLockMax()) {
            return new Rejected(
                    Code.LIMIT,
                    "waitersPerLockMax (" + state.limits.waitersPerLockMax() + ") reached for lock " + lock.name,
                    0);
        }
        Rejected full = waitersFull(s);
        if (full != null) {
            return full;
        }
        if (state.waiters >= state.limits.waitersMax()) {
            return new Rejected(Code.LIMIT, "waitersMax (" + state.limits.waitersMax() + ") reached", 0);
        }
        lifecycle.enqueue(lock, s, c.requestId(), c.waitMs(), c.policy());
        return new Queued(lock.name, lock.currentToken());
    }

    private @Nullable Rejected leasesFull(SessionRecord s) {
        if (s.leaseCount() >= state.limits.leasesPerSessionMax()) {
            return new Rejected(
                    Code.LIMIT,
                    "leasesPerSessionMax (" + state.limits.leasesPerSessionMax() + ") reached by session " + s.id,
                    0);
        }
        int max = state.quota(s.principal).leasesMax();
        long delays = state.delaysByPrincipal.getOrDefault(s.principal, 0L);
        if (!s.principal.isEmpty() && principalCount(s.principal, SessionRecord::leaseCount) + delays >= max) {
            return new Rejected(
                    Code.LIMIT,
                    "leasesPerPrincipalMax (" + max + ") reached by principal " + s.principal
                            + (delays == 0 ? "" : " (" + delays + " of them locks in the lock delay its leases left)"),
                    0);
        }
        return null;
    }

    /**
     * A grant of a free lock makes it busy (a free lock that is not in its delay has no waiters,
     * so it is idle or unknown): one more busy lock, which locksMax bounds. A busy lock is handed
     * from holder to waiter without ever being counted again.
     */
    private @Nullable Rejected locksFull() {
        if (state.locks.busyCount() >= state.limits.locksMax()) {
            return new Rejected(Code.LIMIT, "locksMax (" + state.limits.locksMax() + ") reached", 0);
        }
        return null;
    }

    /** Also {@link #leasesFull}: a wait counts as a lease too. */
    private @Nullable Rejected waitersFull(SessionRecord s) {
        int max = state.quota(s.principal).waitersMax();
        if (!s.principal.isEmpty() && principalCount(s.principal, r -> r.waitsByLock.size()) >= max) {
            return new Rejected(
                    Code.LIMIT, "waitersPerPrincipalMax (" + max + ") reached by principal " + s.principal, 0);
        }
        return leasesFull(s);
    }

    /**
     * Summed over the principal's sessions when it asks for more, not kept as a running count that
     * every grant, end and wait would have to move: a principal's sessions are bounded by its
     * sessionsMax, and the sum is exact by construction.
     */
    private int principalCount(String principal, java.util.function.ToIntFunction<SessionRecord> count) {
        int total = 0;
        for (long id : state.sessions.of(principal)) {
            total += count.applyAsInt(state.sessions.get(id));
        }
        return total;
    }

    /**
     * Cancel carries the acquire's own request id and is not deduplicated itself: cancelling
     * twice is harmless (the second finds nothing). If the grant won the race against the
     * cancel, the lease is released: the caller has stopped waiting and will never use it, and
     * keeping it would block every other waiter until the session ends.
     */
    Result cancelWait(CancelWait c) {
        if (c.attempt() < 0) {
            return Shapes.invalid("attempt must not be negative, was " + c.attempt());
        }
        SessionRecord s = state.sessions.get(c.sessionId());
        if (s == null) {
            return Requests.sessionLost(c.sessionId());
        }
        if (c.attempt() > 0 && s.requests.triedAfter(c.requestId(), c.attempt())) {
            // The call that ended was cut off (a reset, a node that stalled); the client retried.
            return new Rejected(
                    Code.NOT_OWNER,
                    "request " + c.requestId() + " of session " + s.id + " was tried again after try " + c.attempt()
                            + " (latest try " + s.requests.latestAttempt(c.requestId()) + ")",
                    0);
        }
        String waitingFor = s.waitsByRequest.get(c.requestId());
        if (waitingFor != null) {
            LockRecord lock = state.locks.existing(waitingFor);
            Waiter w = Objects.requireNonNull(lock.findWaiter(s.id, c.requestId()), "a wait is in its lock's queue");
            lifecycle.resolveWait(lock, w, new Rejected(Code.CANCELLED, "wait cancelled", 0));
            return new Ok();
        }
        Outcome outcome = s.requests.get(c.requestId());
        LockRecord lock =
                outcome == null || !outcome.granted() ? null : Requests.heldWithToken(state, s, outcome.grantedToken());
        if (lock != null) {
            long granted = Objects.requireNonNull(outcome, "the lock was found by its granted outcome")
                    .grantedToken();
            if (s.requests.grantedAfter(c.requestId(), granted)) {
                return new Ok(); // a later acquire of the session holds this grant now
            }
            lifecycle.endLease(lock, TenureEnd.RELEASED);
            lifecycle.handOff(lock);
            return new Ok();
        }
        return new Rejected(
                Code.NOT_FOUND,
                "request " + c.requestId() + " of session " + s.id + " neither waits nor holds a lease",
                0);
    }

    Result release(Release c) {
        Rejected bad = Shapes.first(Shapes.lockName(c.lock(), state.limits), Shapes.requestId(c.requestId()));
        if (bad != null) {
            return bad;
        }
        // A forced release needs a session too: the history names who forced it, and its request
        // id makes a retry a no-op instead of a second end.
        return Requests.once(
                state, c.sessionId(), c.requestId(), s -> c.force() ? decideForcedRelease(s, c) : decideRelease(s, c));
    }

    /**
     * Compare-and-delete on the token and the session: a stale release (an old token, or someone
     * else's lease) changes nothing, so a process that paused past its lease, or one that read a
     * token from a status, cannot free another holder's lock.
     */
    private Result decideRelease(SessionRecord caller, Release c) {
        LockRecord lock = state.locks.get(c.lock());
        LeaseRecord lease = lock == null ? null : lock.lease;
        if (lease == null || lease.token() != c.token()) {
            return staleRelease(c, lease);
        }
        Objects.requireNonNull(lock, "a lock with a lease exists");
        if (lease.sessionId() != caller.id) {
            return new Rejected(
                    Code.NOT_OWNER,
                    "token " + c.token() + " of lock " + c.lock() + " is held by session " + lease.sessionId()
                            + ", not " + caller.id + " (current token " + lease.token()
                            + "; ending another session's lease is a forced release)",
                    lease.token());
        }
        if (caller.requests.grantedAfter(c.requestId(), c.token())) {
            // Sent before the session acquired this lock again and was given the same lease: the
            // release is superseded, the newer acquire holds the lease.
            return new Ok();
        }
        lifecycle.endLease(lock, TenureEnd.RELEASED);
        lifecycle.handOff(lock);
        return new Ok();
    }

    /**
     * Ends the lease holding {@code c.token()}, whichever session holds it, as REVOKED: it is not a
     * clean end (the holder may still be writing), so the lease's lock delay applies. The holder's
     * LeaseEnded event is added before the hand-off, so it comes out of this step ahead of the next
     * waiter's grant. Who may force is not decided here: the gateway checks it before the log.
     */
    private Result decideForcedRelease(SessionRecord forcer, Release c) {
        LockRecord lock = state.locks.get(c.lock());
        LeaseRecord lease = lock == null ? null : lock.lease;
        if (lease == null || lease.token() != c.token()) {
            return staleRelease(c, lease);
        }
        Objects.requireNonNull(lock, "a lock with a lease exists");
        lifecycle.endLease(lock, TenureEnd.REVOKED, forcer);
        if (lease.sessionId() != forcer.id) {
            state.events.add(new LeaseEnded(lease.sessionId(), lock.name, lease.token(), TenureEnd.REVOKED));
        }
        lifecycle.handOff(lock);
        return new Ok();
    }

    private Rejected staleRelease(Release c, @Nullable LeaseRecord lease) {
        lifecycle.staleWrite(c.lock(), c.token(), "release");
        String current = lease == null ? "the lock is free" : "current token " + lease.token();
        return new Rejected(
                Code.NOT_OWNER,
                "token " + c.token() + " is not the current lease of lock " + c.lock() + " (" + current + ")",
                lease == null ? 0 : lease.token());
    }

    /**
     * A manual renewal. The lease's deadline moves to now + its lease TTL, capped by maxHold (which
     * only a renewal that names a new maxHold extends). A lease its session keeps alive has nothing
     * to extend; the answer still tells the holder how long maxHold leaves it, for its local
     * horizon.
     */
    Result renewLease(Command.RenewLease c) {
        Rejected bad = Shapes.first(
                Shapes.lockName(c.lock(), state.limits),
                Shapes.requestId(c.requestId()),
                Shapes.maxHoldExtension(c.maxHoldMs(), state.limits));
        if (bad != null) {
            return bad;
        }
        return Requests.once(state, c.sessionId(), c.requestId(), s -> decideRenewLease(s, c));
    }

    private Result decideRenewLease(SessionRecord s, Command.RenewLease c) {
        LockRecord lock = state.locks.get(c.lock());
        LeaseRecord lease = lock == null ? null : lock.lease;
        if (lease == null || lease.token() != c.token() || lease.sessionId() != s.id) {
            long current = lease == null ? 0 : lease.token();
            return new Rejected(
                    Code.NOT_OWNER,
                    "token " + c.token() + " of session " + s.id + " is not the current lease of lock " + c.lock()
                            + " (current token " + current + ")",
                    current);
        }
        Objects.requireNonNull(lock, "a lock with a lease exists");
        if (c.maxHoldMs() > 0 && lock.maxHoldAtMs == LockRecord.NONE) {
            // Adding a bound the grant did not ask for would leave its holder's horizon, computed
            // without one, later than the node's end of the lease.
            return new Rejected(Code.INVALID, "lease of lock " + c.lock() + " has no maxHold to extend", 0);
        }
        // Only forward: the holder's horizon may already count on the later end. Asked by the
        // holder itself, an extension cannot let anyone else in sooner; it is still bounded.
        long maxHoldAtMs = c.maxHoldMs() > 0 ? state.nowPlus(c.maxHoldMs()) : lock.maxHoldAtMs;
        if (lease.policy().manualRenew() || maxHoldAtMs != lock.maxHoldAtMs) {
            long renewDeadlineMs =
                    lease.policy().manualRenew() ? state.nowPlus(lease.policy().leaseTtlMs()) : lock.renewDeadlineMs;
            lifecycle.moveLeaseEnd(lock, renewDeadlineMs, maxHoldAtMs);
        }
        long ends = lock.leaseEndsAtMs();
        return new Result.LeaseRenewed(ends == LockRecord.NONE ? -1 : ends - state.nowMs);
    }

    /** A fenced write of the lock's checkpoint: only the current grant's token may write it. */
    Result checkpoint(Command.WriteCheckpoint c) {
        Rejected bad =
                Shapes.first(Shapes.lockName(c.lock(), state.limits), Shapes.checkpoint(c.value(), state.limits));
        if (bad != null) {
            return bad;
        }
        if (c.sessionId() == 0) {
            return decideCheckpoint(c);
        }
        bad = Shapes.requestId(c.requestId());
        if (bad != null) {
            return bad;
        }
        return Requests.once(state, c.sessionId(), c.requestId(), s -> decideCheckpoint(c));
    }

    private Result decideCheckpoint(Command.WriteCheckpoint c) {
        LockRecord lock = state.locks.get(c.lock());
        long current = lock == null ? 0 : lock.currentToken();
        if (current == 0 || current != c.token()) {
            lifecycle.staleWrite(c.lock(), c.token(), "checkpoint");
            return new Rejected(
                    Code.STALE_TOKEN,
                    "checkpoint token " + c.token() + " is not the current token of lock " + c.lock()
                            + " (current token " + current + (current == 0 ? ": the lock is free)" : ")"),
                    current);
        }
        Checkpoint next = new Checkpoint(c.value(), c.token(), state.nowMs);
        Checkpoint granted = Objects.requireNonNull(lock, "a current token means the lock exists")
                .heldLease()
                .previousCheckpoint();
        long total = (long) next.size() + (granted == null ? 0 : granted.size());
        long added = total - lock.checkpointBytes();
        long max = state.limits.checkpointTotalBytesMax();
        if (added > 0 && state.checkpointBytes + added > max) {
            return new Rejected(
                    Code.LIMIT,
                    "checkpointTotalBytesMax (" + max + ") reached: the locks keep " + state.checkpointBytes
                            + " checkpoint bytes and this write adds " + added,
                    0);
        }
        String writer = checkpointWriter(c);
        Rejected over = checkpointQuotaFull(lock, writer, total);
        if (over != null) {
            return over;
        }
        state.chargeCheckpoints(lock, -1);
        lock.checkpoint = next;
        lock.checkpointPrincipal = writer;
        state.chargeCheckpoints(lock, 1);
        state.touch(lock);
        return new Ok();
    }

    /** The session's principal for a write with a session, else the one the gateway named. */
    private String checkpointWriter(Command.WriteCheckpoint c) {
        SessionRecord s = c.sessionId() == 0 ? null : state.sessions.get(c.sessionId());
        return s != null ? s.principal : c.principal();
    }

    /**
     * The last writer of a lock's checkpoint is charged for every checkpoint byte the lock keeps
     * (as the last writer of a key holds the key): a write makes the writer's charge the lock's
     * whole {@code total}, less what it was charged for the lock already.
     */
    private @Nullable Rejected checkpointQuotaFull(LockRecord lock, String writer, long total) {
        if (writer.isEmpty()) {
            return null;
        }
        long max = state.quota(writer).checkpointTotalBytesMax();
        long holds = state.checkpointBytesByPrincipal.getOrDefault(writer, 0L);
        long added = total - (writer.equals(lock.checkpointPrincipal) ? lock.checkpointBytes() : 0);
        if (added > 0 && holds + added > max) {
            return new Rejected(
                    Code.LIMIT,
                    "checkpointTotalBytesPerPrincipalMax (" + max + ") reached by principal " + writer
                            + ": its checkpoints keep " + holds + " bytes and this write adds " + added,
                    0);
        }
        return null;
    }

    /** A bounded wait passed its deadline while the lock stayed held. */
    void timeoutWait(long sessionId, long requestId) {
        SessionRecord s = state.sessions.existing(sessionId);
        LockRecord lock = state.locks.existing(
                Objects.requireNonNull(s.waitsByRequest.get(requestId), "a wait deadline names a wait"));
        Waiter w = Objects.requireNonNull(lock.findWaiter(sessionId, requestId), "a wait is in its lock's queue");
        lifecycle.resolveWait(
                lock,
                w,
                new Rejected(
                        Code.HELD,
                        "wait timed out after " + (w.deadlineMs() - w.sinceMs()) + "ms",
                        lock.currentToken()));
    }
}
