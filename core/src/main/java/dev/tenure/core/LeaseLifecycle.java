package dev.tenure.core;

import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Event.SessionEnded;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Rejected;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The transitions every command shares: grant, end a lease, hand a lock to its next waiter,
 * queue and resolve waits, end a session. Each keeps the lock record, the session indexes, the
 * deadline index and the request cache in step, so callers cannot update one and forget another.
 */
final class LeaseLifecycle {
    private final State state;

    LeaseLifecycle(State state) {
        this.state = state;
    }

    /**
     * Grants an exclusive lease of a free lock. The caller has checked that the lock is free;
     * checking again here is what makes "one lease per lock" hold even if a caller is wrong.
     */
    Grant grant(LockRecord lock, SessionRecord session, Policy policy) {
        return grant(lock, session, policy, false);
    }

    /**
     * Grants a lease of the kind {@code shared} names, beside the lock's current ones if it
     * {@link LockRecord#fits}; checking here again is what keeps "at most permits exclusive
     * leases, never shared with exclusive" even if a caller is wrong. The token is the next value
     * of the replicated counter, so it exceeds every token ever granted, for any lock. That is
     * also why an exclusive grant's token is above every shared token before it: those shared
     * leases were granted (and took their tokens) before the exclusive one could fit.
     */
    Grant grant(LockRecord lock, SessionRecord session, Policy policy, boolean shared) {
        return grant(lock, session, policy, shared, ElectionValue.NONE);
    }

    /**
     * {@link #grant(LockRecord, SessionRecord, Policy, boolean)} of a lease that carries a
     * campaign's {@code value}: the same grant, so an election's leader is fenced, bounded and
     * handed over exactly as a lock's holder is.
     */
    Grant grant(LockRecord lock, SessionRecord session, Policy policy, boolean shared, ElectionValue value) {
        if (!lock.fits(shared) || lock.delayUntilMs != 0) {
            throw new InvariantViolation("grant of held or delayed lock " + lock.name + " to session " + session.id);
        }
        if (!TokenEpoch.hasNext(state.lastToken)) {
            throw new InvariantViolation("grant past the end of token epoch " + TokenEpoch.epoch(state.lastToken)
                    + " (token " + state.lastToken + ") of lock " + lock.name);
        }
        long token = ++state.lastToken;
        LeaseRecord lease = new LeaseRecord(
                session.id, token, state.nowMs, lock.lastEnd, lock.lastToken, lock.checkpoint, policy, shared, value);
        boolean first = lock.lease == null;
        lock.addLease(lease);
        state.electionValueBytes += value.size();
        if (first) {
            // Only a lone lease has a policy with deadlines (the acquire's shape check refuses
            // them for shared leases and semaphores), so the lock's deadlines are the first lease's.
            lock.renewDeadlineMs = policy.manualRenew() ? state.nowPlus(policy.leaseTtlMs()) : LockRecord.NONE;
            lock.maxHoldAtMs = policy.maxHoldMs() > 0 ? state.nowPlus(policy.maxHoldMs()) : LockRecord.NONE;
            indexLeaseEnd(lock);
        } else {
            state.extraLeases++;
        }
        session.addHeld(lock.name);
        state.locks.markBusy(lock);
        state.change(r -> Change.granted(r, lock, lease, state.nowMs));
        state.touch(lock);
        state.touch(session);
        return lease.grant(lock.name, session.ttlMs);
    }

    /**
     * Moves the lease's own deadlines: the manual one to {@code renewDeadlineMs} and maxHold to
     * {@code maxHoldAtMs}, each only forward (a late renewal must not shorten what a new term gave).
     */
    void moveLeaseEnd(LockRecord lock, long renewDeadlineMs, long maxHoldAtMs) {
        unindexLeaseEnd(lock);
        if (lock.renewDeadlineMs != LockRecord.NONE) {
            lock.renewDeadlineMs = Math.max(lock.renewDeadlineMs, renewDeadlineMs);
        }
        if (lock.maxHoldAtMs != LockRecord.NONE) {
            lock.maxHoldAtMs = Math.max(lock.maxHoldAtMs, maxHoldAtMs);
        }
        indexLeaseEnd(lock);
        state.touch(lock);
    }

    /**
     * The lease's own deadline fired: maxHold revokes it (REVOKED), a missed manual renewal
     * expires it (EXPIRED). Its session lives on; the holder is told by a LeaseEnded event.
     */
    void leaseDeadline(String lockName) {
        LockRecord lock = state.locks.existing(lockName);
        LeaseRecord lease = lock.heldLease();
        TenureEnd end = lock.maxHoldAtMs <= state.nowMs ? TenureEnd.REVOKED : TenureEnd.EXPIRED;
        endLease(lock, lease, end);
        state.events.add(new LeaseEnded(lease.sessionId(), lock.name, lease.token(), end));
        handOff(lock);
    }

    /** A lock delay ran out: the lock may be granted again. */
    void delayEnded(String lockName) {
        LockRecord lock = state.locks.existing(lockName);
        state.deadlines.removeDelayEnd(lock.name, lock.delayUntilMs);
        lock.delayUntilMs = 0;
        state.delayedLocks--;
        state.chargeDelay(lock, -1);
        lock.delayPrincipal = "";
        state.touch(lock);
        handOff(lock);
    }

    /**
     * Ends the current lease and records it in the history; the caller then calls {@link #handOff}.
     * An unclean end (anything but RELEASED) starts the lease's lock delay, if it asked for one: the
     * holder may still have writes in flight to storage that cannot check tokens.
     */
    void endLease(LockRecord lock, LeaseRecord lease, TenureEnd end) {
        endLease(lock, lease, end, null);
    }

    /**
     * {@link #endLease(LockRecord, LeaseRecord, TenureEnd)}, recording {@code forcer} (if not null)
     * as the session that forced it. Each of a lock's leases ends on its own and leaves its own
     * history record.
     */
    void endLease(LockRecord lock, LeaseRecord lease, TenureEnd end, @Nullable SessionRecord forcer) {
        if (lock.leaseWithToken(lease.token()) == null) {
            throw new InvariantViolation("end of lease " + lease.token() + " that lock " + lock.name + " lacks");
        }
        lock.addHistory(
                new TenureRecord(
                        lease.sessionId(),
                        lease.token(),
                        lease.grantedAtMs(),
                        state.nowMs,
                        end,
                        forcer == null ? 0 : forcer.id,
                        forcer == null ? "" : forcer.clientName,
                        state.sessions.existing(lease.sessionId()).principal,
                        forcer == null ? "" : forcer.principal),
                state.limits.historyPerLockMax());
        lock.lastEnd = end;
        lock.lastToken = lease.token();
        state.change(r -> Change.ended(r, lock, lease, end, state.nowMs));
        unindexLeaseEnd(lock);
        lock.renewDeadlineMs = LockRecord.NONE;
        lock.maxHoldAtMs = LockRecord.NONE;
        if (lock.leaseCount() > 1) {
            state.extraLeases--;
        }
        state.chargeCheckpoints(lock, -1);
        lock.removeLease(lease); // and with it the checkpoint it was granted with, if the holder wrote another
        state.electionValueBytes -= lease.value().size();
        state.chargeCheckpoints(lock, 1);
        if (end != TenureEnd.RELEASED && lease.policy().lockDelayMs() > 0) {
            lock.delayUntilMs = state.nowPlus(lease.policy().lockDelayMs());
            state.deadlines.addDelayEnd(lock.name, lock.delayUntilMs);
            state.delayedLocks++;
            // The delay holds the lock from everyone, as the lease did: it counts against the
            // principal whose lease left it, so a principal cannot hold more by ending leases uncleanly.
            lock.delayPrincipal = state.sessions.existing(lease.sessionId()).principal;
            state.chargeDelay(lock, 1);
        }
        SessionRecord holder = state.sessions.existing(lease.sessionId());
        holder.removeHeld(lock.name);
        state.touch(lock);
        state.touch(holder);
    }

    /** Counts a rejected stale write against the lock it claimed, if the lock is known. */
    void staleWrite(String lockName, long token, String target) {
        state.staleWritesRejected++;
        LockRecord lock = state.locks.get(lockName);
        if (lock != null) {
            lock.staleWrites = lock.staleWrites.plus(token, lock.currentToken(), target, state.nowMs);
            state.touch(lock);
        }
    }

    /**
     * Grants a just-freed lock to the first waiter, or marks it idle. The grant happens in the
     * same step that ended the previous lease, so no other command can slip in between; the
     * previous holder learns of its end (reply or LeaseEnded) from that same step. During a lock
     * delay nothing happens: the waiters stay queued until the delay's deadline hands off again.
     */
    void handOff(LockRecord lock) {
        if (lock.delayUntilMs != 0) {
            state.touch(lock);
            return;
        }
        admitHead(lock);
        state.touch(lock);
        if (lock.lease == null && lock.waiterCount() == 0) {
            LockRecord dropped = state.locks.markIdle(lock, state.limits.idleLocksMax());
            if (dropped != null) {
                state.chargeCheckpoints(dropped, -1);
                state.touchedLocks.add(dropped.name); // so the step's check sees it left the idle order too
            }
        }
    }

    /**
     * FIFO: only the head is ever considered, so a waiting exclusive acquire holds back every
     * shared one behind it; a run of shared waiters at the head goes in together, and so do a
     * semaphore's waiters while permits are free.
     */
    private void admitHead(LockRecord lock) {
        for (Waiter next = lock.peekWaiter(); next != null && lock.fits(next.shared()); next = lock.peekWaiter()) {
            if (!TokenEpoch.hasNext(state.lastToken)) {
                // With the epoch's tokens spent, a waiter that would be granted is refused instead:
                // no grant at all rather than one whose token a restored cluster's floor is not above.
                dropWait(lock, next, TokenEpoch.exhausted(state.lastToken));
                continue;
            }
            lock.pollWaiter();
            SessionRecord session = state.sessions.existing(next.sessionId());
            detachWait(lock, session, next);
            Granted granted = new Granted(grant(lock, session, next.policy(), next.shared(), next.value()));
            Requests.remember(state, session, next.requestId(), Outcome.settled(granted));
            state.events.add(new WaitResolved(
                    session.id, next.requestId(), granted, session.requests.latestAttempt(next.requestId())));
        }
    }

    void enqueue(
            LockRecord lock,
            SessionRecord session,
            long requestId,
            long waitMs,
            Policy policy,
            boolean shared,
            ElectionValue value) {
        long deadlineMs = waitMs < 0 ? Waiter.NEVER : state.nowPlus(waitMs);
        Waiter w = new Waiter(session.id, requestId, state.nowMs, deadlineMs, policy, shared, value);
        lock.addWaiter(w);
        state.change(r -> Change.waiting(r, Change.Kind.QUEUED, lock, w, state.nowMs));
        state.waiters++;
        state.electionValueBytes += value.size();
        session.addWait(lock.name, requestId);
        if (w.bounded()) {
            state.deadlines.addWait(session.id, requestId, deadlineMs);
        }
        Requests.remember(state, session, requestId, Outcome.waiting(lock.name));
        state.touch(lock);
    }

    /**
     * Takes a waiter out of the queue without granting, remembers and reports {@code outcome}.
     * An exclusive waiter at the head of a lock held shared held back the shared ones behind it:
     * once it leaves (cancelled, timed out, its session ended), they fit and are granted in the
     * same step, or they would wait for a lease that may never end.
     */
    void resolveWait(LockRecord lock, Waiter waiter, Rejected outcome) {
        dropWait(lock, waiter, outcome);
        if (lock.lease != null && lock.delayUntilMs == 0) {
            admitHead(lock);
        }
        state.touch(lock);
    }

    /** Takes {@code waiter} out of the lock's queue and answers its wait with {@code outcome}. */
    private void dropWait(LockRecord lock, Waiter waiter, Rejected outcome) {
        lock.removeWaiter(waiter);
        state.change(r -> Change.waiting(r, Change.Kind.LEFT, lock, waiter, state.nowMs));
        SessionRecord session = state.sessions.existing(waiter.sessionId());
        detachWait(lock, session, waiter);
        Requests.remember(state, session, waiter.requestId(), Outcome.settled(outcome));
        state.events.add(new WaitResolved(
                session.id, waiter.requestId(), outcome, session.requests.latestAttempt(waiter.requestId())));
    }

    /**
     * Ends a session: its leases first (each handed to the next waiter at once), then its waits,
     * both in lock-name order so every replica emits the same events in the same order, then its
     * ephemeral keys, in key order.
     */
    void endSession(SessionRecord session, TenureEnd end) {
        endSession(session, end, 0);
    }

    /**
     * {@link #endSession(SessionRecord, TenureEnd)}, keeping each lock the session held from every
     * waiter until {@code holdUntilMs} (0: no hold): a revoked holder that has not heard yet (its
     * stream is slow, or broken and in its grace) may trust its lease until the session's deadline,
     * so nobody else is granted the lock before then.
     */
    void endSession(SessionRecord session, TenureEnd end, long holdUntilMs) {
        for (String name : session.heldLocks()) {
            LockRecord lock = state.locks.existing(name);
            LeaseRecord lease = Objects.requireNonNull(lock.leaseOf(session.id), "a held lock has the session's lease");
            long token = lease.token();
            endLease(lock, lease, end);
            if (lock.lease == null) {
                // A lock still held by others has no delay to wait in: its freed permit goes on at once.
                holdUntil(lock, holdUntilMs);
            }
            state.events.add(new LeaseEnded(session.id, name, token, end));
            handOff(lock);
        }
        Rejected lost = new Rejected(Code.SESSION_LOST, "session " + session.id + " ended (" + end + ")", 0);
        // Iterate a copy: resolving a wait removes it from the map (and TreeMap entries are not stable).
        for (Map.Entry<String, Long> wait : new TreeMap<>(session.waitsByLock).entrySet()) {
            LockRecord lock = state.locks.existing(wait.getKey());
            resolveWait(
                    lock,
                    Objects.requireNonNull(
                            lock.findWaiter(session.id, wait.getValue()), "a session's wait is in its lock's queue"),
                    lost);
        }
        EphemeralKeys.deleteOf(state, session.id);
        state.events.add(new SessionEnded(session.id, end));
        state.deadlines.removeSession(session.id, session.deadlineMs);
        state.sessions.remove(session.id);
        state.touch(session);
    }

    /** Keeps a freed lock from its waiters until {@code untilMs}, as a lock delay does; the later end wins. */
    private void holdUntil(LockRecord lock, long untilMs) {
        if (untilMs <= state.nowMs || untilMs <= lock.delayUntilMs) {
            return;
        }
        if (lock.delayUntilMs != 0) {
            state.deadlines.removeDelayEnd(lock.name, lock.delayUntilMs);
        } else {
            state.delayedLocks++;
        }
        lock.delayUntilMs = untilMs;
        state.deadlines.addDelayEnd(lock.name, untilMs);
    }

    private void indexLeaseEnd(LockRecord lock) {
        if (lock.leaseEndsAtMs() != LockRecord.NONE) {
            state.deadlines.addLeaseEnd(lock.name, lock.leaseEndsAtMs());
        }
    }

    private void unindexLeaseEnd(LockRecord lock) {
        if (lock.leaseEndsAtMs() != LockRecord.NONE) {
            state.deadlines.removeLeaseEnd(lock.name, lock.leaseEndsAtMs());
        }
    }

    /** The waiter has left the lock's queue (granted or resolved): its session and index forget it. */
    private void detachWait(LockRecord lock, SessionRecord session, Waiter waiter) {
        state.waiters--;
        state.electionValueBytes -= waiter.value().size();
        session.removeWait(lock.name, waiter.requestId());
        if (waiter.bounded()) {
            state.deadlines.removeWait(waiter.sessionId(), waiter.requestId(), waiter.deadlineMs());
        }
        state.touch(session);
    }
}
