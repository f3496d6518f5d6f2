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
                Shapes.permits(c.permits(), c.shared(), c.policy(), state.limits),
                Shapes.electionValue(c.value(), c.permits(), c.shared(), state.limits),
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
        if (lock != null && !lock.idle() && lock.permits != c.permits()) {
            // Two acquirers that disagree on N would each believe in a different bound; the
            // name's N stands until the name is free again.
            return Shapes.invalid("lock " + lock.name + " admits " + lock.permits + " lease(s) at once (permits "
                    + lock.permits + "), not " + c.permits() + ": every acquirer must name the same permits");
        }
        LeaseRecord own = lock == null ? null : lock.leaseOf(s.id);
        if (own != null) {
            return reentrant(Objects.requireNonNull(lock, "a lock with a lease exists"), own, s, c);
        }
        Long waiting = s.waitsByLock.get(c.lock());
        if (waiting != null) {
            return Shapes.invalid(
                    "session " + s.id + " already waits for lock " + c.lock() + " under request " + waiting);
        }
        boolean delayed = lock != null && lock.delayUntilMs != 0;
        // FIFO: a new acquire goes in beside the current leases only when nobody waits, so a
        // queued exclusive acquire is never overtaken by later shared ones.
        if (lock == null || (!delayed && lock.waiterCount() == 0 && lock.fits(c.shared()))) {
            Rejected full = Shapes.first(
                    tokensFull(),
                    leasesFull(s),
                    locksFull(),
                    ElectionCommands.valuesFull(state, c.value().size()));
            if (full != null) {
                return full;
            }
            LockRecord target = state.locks.getOrCreate(c.lock());
            if (target.lease == null) {
                target.permits = c.permits();
            }
            return new Granted(lifecycle.grant(target, s, c.policy(), c.shared(), c.value()));
        }
        if (c.waitMs() == 0) {
            return notNow(lock, delayed);
        }
        if (lock.waiterCount() >= state.limits.waitersPerLockMax()) {
            return new Rejected(
                    Code.LIMIT,
                    "waitersPerLockMax (" + state.limits.waitersPerLockMax() + ") reached for lock " + lock.name,
                    0);
        }
        Rejected full = Shapes.first(
                waitersFull(s), ElectionCommands.valuesFull(state, c.value().size()));
        if (full != null) {
            return full;
        }
        if (state.waiters >= state.limits.waitersMax()) {
            return new Rejected(Code.LIMIT, "waitersMax (" + state.limits.waitersMax() + ") reached", 0);
        }
        lifecycle.enqueue(lock, s, c.requestId(), c.waitMs(), c.policy(), c.shared(), c.value());
        return new Queued(lock.name, lock.currentToken());
    }

    /** The session already holds a lease of the lock. */
    private Result reentrant(LockRecord lock, LeaseRecord own, SessionRecord s, Acquire c) {
        if (own.policy().bounded()) {
            // Its deadline (maxHold, manual lease TTL) runs from the first grant; handed out
            // again, the new holder's horizon would start from the new request and outlive it.
            return new Rejected(
                    Code.HELD,
                    "lock " + lock.name + " is held by this session (token " + own.token()
                            + ") under a lease with its own deadline, which is not re-entrant",
                    own.token());
        }
        if (own.shared() && !c.shared()) {
            // The upgrade would wait for its own shared lease to end; two holders upgrading at
            // once would each wait for the other forever.
            return Shapes.invalid("session " + s.id + " holds a shared lease of lock " + lock.name + " (token "
                    + own.token() + "): upgrading to exclusive is not supported; release it and acquire again");
        }
        if (!own.shared() && c.shared()) {
            return Shapes.invalid("session " + s.id + " holds lock " + lock.name + " exclusively (token " + own.token()
                    + "): downgrade the lease to hold it shared");
        }
        // Re-entrant acquire: the same lease, not a new token. A second token would make the
        // first one stale while the same holder may still be writing with it.
        return new Granted(own.grant(lock.name, s.ttlMs));
    }

    /** An acquire that will not wait, refused because the lock cannot take it now. */
    private static Rejected notNow(LockRecord lock, boolean delayed) {
        if (delayed) {
            return new Rejected(
                    Code.HELD,
                    "lock " + lock.name + " is free but in its lock delay until " + lock.delayUntilMs
                            + " ms (the previous tenure, token " + lock.lastToken + ", ended " + lock.lastEnd + ")",
                    0);
        }
        long token = lock.currentToken();
        int n = lock.leaseCount();
        String how = n == 1 && lock.waiterCount() == 0
                ? "held (token " + token + ")"
                : "held by " + n + " lease(s)" + (lock.heldShared() ? " shared" : "") + ", first token " + token
                        + ", with " + lock.waiterCount() + " waiting";
        return new Rejected(Code.HELD, "lock " + lock.name + " is " + how, token);
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
     * from holder to waiter without ever being counted again. A grant beside a lock's current
     * leases (a semaphore's, or shared) adds a lease, which locksMax bounds too: it counts every
     * busy lock and every lease beyond a lock's first.
     */
    private @Nullable Rejected locksFull() {
        if (state.locks.busyCount() + state.extraLeases >= state.limits.locksMax()) {
            return new Rejected(Code.LIMIT, "locksMax (" + state.limits.locksMax() + ") reached", 0);
        }
        return null;
    }

    /** A grant takes the next token, which must stay in the counter's epoch (see {@link TokenEpoch}). */
    private @Nullable Rejected tokensFull() {
        return TokenEpoch.hasNext(state.lastToken) ? null : TokenEpoch.exhausted(state.lastToken);
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
            lifecycle.endLease(
                    lock, Objects.requireNonNull(lock.leaseOf(s.id), "the session holds it"), TenureEnd.RELEASED);
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
        LeaseRecord lease = lock == null ? null : lock.leaseWithToken(c.token());
        if (lease == null) {
            return staleRelease(c, lock);
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
        lifecycle.endLease(lock, lease, TenureEnd.RELEASED);
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
        LeaseRecord lease = lock == null ? null : lock.leaseWithToken(c.token());
        if (lease == null) {
            return staleRelease(c, lock);
        }
        Objects.requireNonNull(lock, "a lock with a lease exists");
        lifecycle.endLease(lock, lease, TenureEnd.REVOKED, forcer);
        if (lease.sessionId() != forcer.id) {
            state.events.add(new LeaseEnded(lease.sessionId(), lock.name, lease.token(), TenureEnd.REVOKED));
        }
        lifecycle.handOff(lock);
        return new Ok();
    }

    private Rejected staleRelease(Release c, @Nullable LockRecord lock) {
        LeaseRecord lease = lock == null ? null : lock.lease;
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
        LeaseRecord lease = ownLease(lock, c.token(), s);
        if (lease == null) {
            return notOwner(lock, c.lock(), c.token(), s);
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

    /**
     * The lease of {@code lock} granted under {@code token} if {@code session} holds it, else null.
     * Commands bound to their owner (a renewal, a downgrade, a proclaim) act only on this: a holder
     * that paused past its lease, or released it, still has the token but no longer the lease.
     */
    static @Nullable LeaseRecord ownLease(@Nullable LockRecord lock, long token, SessionRecord session) {
        LeaseRecord lease = lock == null ? null : lock.leaseWithToken(token);
        return lease != null && lease.sessionId() == session.id ? lease : null;
    }

    /** The refusal of an owner-bound command whose {@link #ownLease} is null; it changes nothing. */
    static Rejected notOwner(@Nullable LockRecord lock, String lockName, long token, SessionRecord session) {
        long current = lock == null ? 0 : lock.currentToken();
        return new Rejected(
                Code.NOT_OWNER,
                "token " + token + " of session " + session.id + " is not the current lease of lock " + lockName
                        + " (current token " + current + ")",
                current);
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
        if (lock == null || !lock.holdsToken(c.token())) {
            lifecycle.staleWrite(c.lock(), c.token(), "checkpoint");
            return new Rejected(
                    Code.STALE_TOKEN,
                    "checkpoint token " + c.token() + " is not the current token of lock " + c.lock()
                            + " (current token " + current + (current == 0 ? ": the lock is free)" : ")"),
                    current);
        }
        Checkpoint next = new Checkpoint(c.value(), c.token(), state.nowMs);
        long total = lock.checkpointBytesWith(next);
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

    /**
     * Exclusive to shared in one step, same token: the holder never stops holding the lock, and
     * its token stays below every exclusive token granted after it. Shared waiters at the head of
     * the queue are admitted at once. Only a plain lock's lease without a policy is downgraded: a
     * shared lease has no deadlines or lock delay of its own.
     */
    Result downgrade(Command.Downgrade c) {
        Rejected bad = Shapes.first(Shapes.lockName(c.lock(), state.limits), Shapes.requestId(c.requestId()));
        if (bad != null) {
            return bad;
        }
        return Requests.once(state, c.sessionId(), c.requestId(), s -> decideDowngrade(s, c));
    }

    private Result decideDowngrade(SessionRecord s, Command.Downgrade c) {
        LockRecord lock = state.locks.get(c.lock());
        LeaseRecord lease = ownLease(lock, c.token(), s);
        if (lease == null) {
            return notOwner(lock, c.lock(), c.token(), s);
        }
        Objects.requireNonNull(lock, "a lock with a lease exists");
        if (lease.shared()) {
            return new Ok(); // already shared: nothing to change
        }
        if (lock.permits != 1) {
            return Shapes.invalid("lock " + lock.name + " is a semaphore (permits " + lock.permits
                    + "): its leases are not downgraded");
        }
        if (!lease.value().isEmpty()) {
            // An election has one leader: a shared lease publishing a value would let others share it.
            return Shapes.invalid("the lease of lock " + lock.name + " (token " + lease.token()
                    + ") is an election's leadership, which is exclusive");
        }
        if (!lease.policy().equals(Policy.NONE)) {
            return Shapes.invalid("the lease of lock " + lock.name + " (token " + lease.token()
                    + ") has a lock delay, maxHold or manual renewal, which a shared lease does not support");
        }
        LeaseRecord downgraded = lease.downgraded();
        lock.replaceLease(lease, downgraded);
        state.touch(lock);
        // Before the hand-off: the shared grants it admits follow the downgrade in revision order.
        state.change(r -> Change.leaseChanged(r, Change.Kind.DOWNGRADED, lock, downgraded, state.nowMs));
        lifecycle.handOff(lock);
        return new Ok();
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
