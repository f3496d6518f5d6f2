package dev.tenure.core;

import dev.tenure.core.Command.AbandonOpen;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.ResumeSession;
import dev.tenure.core.Result.KeepAliveResult;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.SessionOpened;
import dev.tenure.core.Result.SessionResumed;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/** Open, renew, close and expire sessions, and restart their deadlines on a new term. */
final class SessionCommands {
    private final State state;
    private final LeaseLifecycle lifecycle;
    private final Revocations revocations;

    SessionCommands(State state, LeaseLifecycle lifecycle, Revocations revocations) {
        this.state = state;
        this.lifecycle = lifecycle;
        this.revocations = revocations;
    }

    Result open(OpenSession c) {
        Rejected bad = Shapes.first(
                Shapes.ttl(c.ttlMs(), state.limits),
                Shapes.clientName(c.clientName(), state.limits),
                Shapes.principal(c.principal(), state.limits));
        if (bad != null) {
            return bad;
        }
        Rejected revoked = revocations.barred(c.principal());
        if (revoked != null) {
            return revoked;
        }
        if (state.sessions.size() >= state.limits.sessionsMax()) {
            return new Rejected(Code.LIMIT, "sessionsMax (" + state.limits.sessionsMax() + ") reached", 0);
        }
        int perPrincipal = state.quota(c.principal()).sessionsMax();
        if (!c.principal().isEmpty() && state.sessions.of(c.principal()).size() >= perPrincipal) {
            return new Rejected(
                    Code.LIMIT,
                    "sessionsPerPrincipalMax (" + perPrincipal + ") reached by principal " + c.principal(),
                    0);
        }
        SessionRecord s =
                state.sessions.open(c.ttlMs(), c.clientName(), c.principal(), state.nowPlus(c.ttlMs()), c.secretHash());
        state.deadlines.addSession(s.id, s.deadlineMs);
        state.touch(s);
        return new SessionOpened(s.id, s.ttlMs);
    }

    /**
     * A keepalive is a log entry, so it renews only once committed: a deposed leader cannot
     * extend a deadline. Renewal never shortens a deadline (max), so a keepalive applied late
     * cannot undo a later term restart.
     */
    Result keepAlive(KeepAlive c) {
        if (c.sessionIds() == null) {
            return Shapes.invalid("sessionIds must not be null");
        }
        for (Long id : c.sessionIds()) { // List.of().contains(null) would throw, so scan
            if (id == null) {
                return Shapes.invalid("sessionIds must not contain null");
            }
        }
        TreeSet<Long> seen = new TreeSet<>();
        List<Long> lost = new ArrayList<>();
        for (Long id : c.sessionIds()) {
            SessionRecord s = state.sessions.get(id);
            if (s == null) {
                if (seen.add(id)) {
                    lost.add(id);
                }
            } else {
                extend(s, state.nowPlus(s.ttlMs));
            }
        }
        return new KeepAliveResult(List.copyOf(lost));
    }

    Result close(CloseSession c) {
        if (c.end() == null || c.end() == TenureEnd.NONE) {
            return Shapes.invalid("end must be RELEASED, EXPIRED, DISCONNECTED or REVOKED, was " + c.end());
        }
        if (c.attachment() < 0) {
            return Shapes.invalid("attachment must not be negative, was " + c.attachment());
        }
        SessionRecord s = state.sessions.get(c.sessionId());
        if (s == null) {
            return Requests.sessionLost(c.sessionId());
        }
        if (c.attachment() != 0 && c.attachment() != s.attachment) {
            return new Rejected(
                    Code.NOT_OWNER,
                    "session " + s.id + " was resumed on another connection (attachment " + s.attachment + ", not "
                            + c.attachment() + ")",
                    0);
        }
        lifecycle.endSession(s, c.end());
        return new Ok();
    }

    /**
     * Ends the session opened with {@code c}'s secret if nobody can hold it: never resumed
     * (attachment 1), so only the open's answer, which its client never had, named it. A scan in
     * id order: it runs only after an open that failed, and a map from secret to session would be
     * one more index to keep right through every open, close and snapshot.
     */
    Result abandonOpen(AbandonOpen c) {
        if (c.secretHash() == null || c.secretHash().equals(SecretHash.NONE)) {
            return Shapes.invalid("an abandoned open must name its secret's hash");
        }
        for (SessionRecord s : state.sessions.all()) {
            if (s.attachment == 1 && s.secretHash().sameAs(c.secretHash())) {
                lifecycle.endSession(s, TenureEnd.DISCONNECTED);
                return new Ok();
            }
        }
        return new Ok();
    }

    /**
     * A refusal if {@code c} acts for a live session whose secret {@code shown} is not, else null.
     * Checked before anything else, so a refused request changes nothing: an id read from lock
     * status, or guessed (ids are sequential), lets no one resume, release or write as another
     * client's session. A session that does not exist is left to each command's own answer.
     */
    @Nullable
    Rejected denied(Command c, SecretHash shown) {
        long id = actsFor(c);
        if (id == 0) {
            return null;
        }
        SessionRecord s = state.sessions.get(id);
        SecretHash owner = s == null ? SecretHash.NONE : s.secretHash();
        if (owner.equals(SecretHash.NONE) || owner.sameAs(shown)) {
            return null;
        }
        return new Rejected(
                Code.DENIED, "session " + id + " belongs to another client: the request did not show its secret", 0);
    }

    /**
     * The session a request acts for, or 0 for a command that acts for none or that only a
     * gateway sends for a stream it bound (keepalives, closes). A withdrawn wait is checked: the
     * gateway sends it when an acquire's call ends, with that acquire's secret.
     */
    private static long actsFor(Command c) {
        if (c instanceof Command.ResumeSession x) return x.sessionId();
        if (c instanceof Command.Acquire x) return x.sessionId();
        if (c instanceof Command.Release x) return x.sessionId();
        if (c instanceof Command.RenewLease x) return x.sessionId();
        if (c instanceof Command.Downgrade x) return x.sessionId();
        if (c instanceof Command.WriteCheckpoint x) return x.sessionId();
        if (c instanceof Command.Proclaim x) return x.sessionId();
        if (c instanceof Command.Put x) return x.sessionId();
        if (c instanceof Command.Delete x) return x.sessionId();
        if (c instanceof Command.CancelWait x) return x.sessionId();
        return 0;
    }

    Result resume(ResumeSession c) {
        // Checked again at apply, not only by the node that took the call: its ACL may be older
        // than the revocation, or the revocation may have been applied after its check. Before
        // the session's existence, so a revoked client learns why, not only that it is gone.
        Rejected revoked = revocations.barred(c.principal());
        if (revoked != null) {
            return revoked;
        }
        SessionRecord s = state.sessions.get(c.sessionId());
        if (s == null) {
            return Requests.sessionLost(c.sessionId());
        }
        if (c.expectedAttachment() != 0 && c.expectedAttachment() != s.attachment) {
            return new Result.ResumeSuperseded(s.id, s.attachment);
        }
        s.attachment++;
        extend(s, state.nowPlus(s.ttlMs));
        return new SessionResumed(s.id, s.ttlMs, s.attachment);
    }

    /** A session deadline fired: it was not renewed in time. */
    void expire(long sessionId) {
        lifecycle.endSession(state.sessions.existing(sessionId), TenureEnd.EXPIRED);
    }

    /**
     * A new leader restarts every session deadline at its own timestamp + TTL (never earlier than
     * before). A leader whose clock runs ahead could otherwise expire a session before its client's
     * horizon, i.e. while the client still rightly believes it holds its leases.
     */
    void newTerm(long timestampMs) {
        for (SessionRecord s : new ArrayList<>(state.sessions.all())) {
            extend(s, State.saturatingAdd(timestampMs, s.ttlMs));
        }
    }

    private void extend(SessionRecord s, long deadlineMs) {
        if (deadlineMs > s.deadlineMs) {
            state.deadlines.removeSession(s.id, s.deadlineMs);
            s.deadlineMs = deadlineMs;
            state.deadlines.addSession(s.id, deadlineMs);
        }
        state.touch(s);
    }
}
