package dev.tenure.core;

import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Request-id dedup for mutating commands of a session.
 *
 * <p>Choice where the contract is silent: every outcome decided from state (granted, queued,
 * held, limit, not-owner, stale-token, ok, ...) is remembered, not only successes, so that a
 * retry always returns exactly what the first attempt returned. Outcomes decided without state
 * (malformed input, unknown session, too-old id) are not remembered: they change nothing and a
 * retry reaches the same verdict anyway.
 */
final class Requests {
    private Requests() {}

    /** The original outcome of a retried request, REQUEST_TOO_OLD, or null for a new request. */
    static @Nullable Result replay(State state, SessionRecord session, long requestId) {
        Outcome cached = session.requests.get(requestId);
        if (cached != null) {
            if (cached.granted()) {
                return granted(state, session, requestId, cached.grantedToken());
            }
            String waitingLock = cached.waitingLock(); // non-null exactly when cached.pending()
            if (waitingLock == null) {
                return cached.result();
            }
            // Still queued: report the queue as it is now; a waiter always has a holder.
            LockRecord lock = state.locks.get(waitingLock);
            return new Queued(waitingLock, lock == null ? 0 : lock.currentToken());
        }
        if (session.requests.isTooOld(requestId)) {
            return new Rejected(
                    Code.REQUEST_TOO_OLD,
                    "requestId " + requestId + " is older than the retry window"
                            + " of session " + session.id + " (ids up to " + session.requests.highestEvictedId()
                            + " were forgotten)",
                    0);
        }
        return null;
    }

    /**
     * A retried acquire that was granted {@code token}: while the lease lives, its grant again,
     * rebuilt from the lease (which keeps everything the grant said). A retried acquire whose
     * grant has since ended (its wait was cancelled after the grant raced ahead, which released
     * it) must not be told "granted" again: the caller never learnt of that lease, and replaying
     * it would make it believe it holds a lock nobody gave it.
     */
    private static Result granted(State state, SessionRecord session, long requestId, long token) {
        LockRecord lock = heldWithToken(state, session, token);
        if (lock == null) {
            return new Rejected(
                    Code.CANCELLED,
                    "the grant of request " + requestId + " (token " + token + ") to session " + session.id
                            + " has already ended",
                    0);
        }
        LeaseRecord lease = Objects.requireNonNull(lock.leaseOf(session.id), "a lock the session holds");
        return new Granted(lease.grant(lock.name, session.ttlMs));
    }

    /** The lock {@code session} holds under {@code token}, or null: the lease has ended. */
    static @Nullable LockRecord heldWithToken(State state, SessionRecord session, long token) {
        for (String name : session.heldLocks()) {
            LockRecord lock = state.locks.existing(name);
            LeaseRecord lease = lock.leaseOf(session.id);
            if (lease != null && lease.token() == token) {
                return lock;
            }
        }
        return null;
    }

    static void remember(State state, SessionRecord session, long requestId, Outcome outcome) {
        session.requests.remember(requestId, outcome, state.limits.requestIdCacheMax());
        state.touch(session);
    }

    /**
     * Runs a mutating request of a live session once: a retry gets the remembered outcome, a new
     * request is decided and its outcome remembered. Callers check the request's shape first.
     */
    static Result once(State state, long sessionId, long requestId, Function<SessionRecord, Result> decide) {
        SessionRecord s = state.sessions.get(sessionId);
        if (s == null) {
            return sessionLost(sessionId);
        }
        Result replay = replay(state, s, requestId);
        if (replay != null) {
            return replay;
        }
        Result r = decide.apply(s);
        remember(state, s, requestId, Outcome.settled(r));
        return r;
    }

    static Rejected sessionLost(long sessionId) {
        return new Rejected(Code.SESSION_LOST, "session " + sessionId + " is unknown or has ended", 0);
    }
}
