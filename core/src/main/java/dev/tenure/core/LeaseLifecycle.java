package dev.tenure.core;

import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Event.SessionEnded;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Rejected;
import java.util.ArrayList;
import java.util.Map;
import java.util.TreeMap;

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
     * Grants a free lock. The caller has checked that the lock is free; checking again here is
     * what makes "one lease per lock" hold even if a caller is wrong. The token is the next
     * value of the replicated counter, so it exceeds every token ever granted, for any lock.
     */
    Grant grant(LockRecord lock, Session session) {
        if (lock.lease != null) {
            throw new InvariantViolation("grant of held lock " + lock.name + " to session " + session.id);
        }
        long token = ++state.lastToken;
        lock.lease = new Lease(session.id, token, state.nowMs, lock.lastEnd, lock.lastToken);
        session.heldLocks.add(lock.name);
        state.locks.markBusy(lock);
        state.touch(lock);
        state.touch(session);
        return lock.lease.grant(lock.name, session.ttlMs);
    }

    /** Ends the current lease and records it in the history; the caller then calls {@link #handOff}. */
    void endLease(LockRecord lock, TenureEnd end) {
        Lease lease = lock.lease;
        lock.history.addLast(new TenureRecord(lease.sessionId(), lease.token(), lease.grantedAtMs(), state.nowMs, end));
        while (lock.history.size() > state.limits.historyPerLockMax()) {
            lock.history.removeFirst();
        }
        lock.lastEnd = end;
        lock.lastToken = lease.token();
        lock.lease = null;
        Session holder = state.sessions.get(lease.sessionId());
        holder.heldLocks.remove(lock.name);
        state.touch(lock);
        state.touch(holder);
    }

    /**
     * Grants a just-freed lock to the first waiter, or marks it idle. The grant happens in the
     * same step that ended the previous lease, so no other command can slip in between; the
     * previous holder learns of its end (reply or LeaseEnded) from that same step.
     */
    void handOff(LockRecord lock) {
        Waiter next = lock.waiters.pollFirst();
        if (next == null) {
            String dropped = state.locks.markIdle(lock, state.limits.idleLocksMax());
            state.touch(lock);
            if (dropped != null) {
                state.touchedLocks.add(dropped); // so the step's check sees it left the idle order too
            }
            return;
        }
        Session session = state.sessions.get(next.sessionId());
        detachWait(lock, session, next);
        Granted granted = new Granted(grant(lock, session));
        Requests.remember(state, session, next.requestId(), Outcome.settled(granted));
        state.events.add(new WaitResolved(session.id, next.requestId(), granted));
    }

    void enqueue(LockRecord lock, Session session, long requestId, long waitMs) {
        long deadlineMs = waitMs < 0 ? Waiter.NEVER : state.nowPlus(waitMs);
        Waiter w = new Waiter(session.id, requestId, state.nowMs, deadlineMs);
        lock.waiters.addLast(w);
        session.addWait(lock.name, requestId);
        if (w.bounded()) {
            state.deadlines.addWait(session.id, requestId, deadlineMs);
        }
        Requests.remember(state, session, requestId, Outcome.waiting(lock.name));
        state.touch(lock);
    }

    /** Takes a waiter out of the queue without granting, remembers and reports {@code outcome}. */
    void resolveWait(LockRecord lock, Waiter waiter, Rejected outcome) {
        lock.waiters.remove(waiter);
        Session session = state.sessions.get(waiter.sessionId());
        detachWait(lock, session, waiter);
        Requests.remember(state, session, waiter.requestId(), Outcome.settled(outcome));
        state.events.add(new WaitResolved(session.id, waiter.requestId(), outcome));
        state.touch(lock);
    }

    /**
     * Ends a session: its leases first (each handed to the next waiter at once), then its waits,
     * both in lock-name order so every replica emits the same events in the same order.
     */
    void endSession(Session session, TenureEnd end) {
        for (String name : new ArrayList<>(session.heldLocks)) {
            LockRecord lock = state.locks.get(name);
            long token = lock.lease.token();
            endLease(lock, end);
            state.events.add(new LeaseEnded(session.id, name, token, end));
            handOff(lock);
        }
        Rejected lost = new Rejected(Code.SESSION_LOST, "session " + session.id + " ended (" + end + ")", 0);
        // Iterate a copy: resolving a wait removes it from the map (and TreeMap entries are not stable).
        for (Map.Entry<String, Long> wait : new TreeMap<>(session.waitsByLock).entrySet()) {
            LockRecord lock = state.locks.get(wait.getKey());
            resolveWait(lock, lock.findWaiter(session.id, wait.getValue()), lost);
        }
        state.events.add(new SessionEnded(session.id, end));
        state.deadlines.removeSession(session.id, session.deadlineMs);
        state.sessions.remove(session.id);
        state.touch(session);
    }

    private void detachWait(LockRecord lock, Session session, Waiter waiter) {
        session.removeWait(lock.name, waiter.requestId());
        if (waiter.bounded()) {
            state.deadlines.removeWait(waiter.sessionId(), waiter.requestId(), waiter.deadlineMs());
        }
        state.touch(session);
    }
}
