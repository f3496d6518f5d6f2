package dev.tenure.core;

import dev.tenure.core.Command.ReinstatePrincipal;
import dev.tenure.core.Command.RevokePrincipal;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Rejected;
import java.util.ArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Revoking a principal, replicated: a node's ACL reload becomes a log entry, so every replica ends
 * the same sessions at the same position, whichever node they are bound to, in their disconnect
 * grace or not bound anywhere yet; and a removed principal is barred in the replicated state, so
 * an open or a resume by it that any node's (possibly older) ACL let through is refused at apply.
 *
 * <p>The safety order: a revoked holder may not have heard yet (its LeaseEnded is on the wire, or
 * its connection broke and it counts on its grace), and trusts its lease at most until its
 * session's deadline: every renewal it was acknowledged moved that deadline to at least its own
 * horizon. So each lock it held is kept from every waiter until then, like a lock delay, and only
 * then handed on. Its token stops being current at once: fenced writes with it are refused now.
 */
final class Revocations {
    /** How many principals may be barred at once; the refusal names it. */
    static final int BARRED_PRINCIPALS_MAX = 10_000;

    private final State state;
    private final LeaseLifecycle lifecycle;

    Revocations(State state, LeaseLifecycle lifecycle) {
        this.state = state;
        this.lifecycle = lifecycle;
    }

    Result revoke(RevokePrincipal c) {
        Rejected bad = named(c.principal());
        if (bad != null) {
            return bad;
        }
        if (c.barred()
                && !state.barredPrincipals.contains(c.principal())
                && state.barredPrincipals.size() >= BARRED_PRINCIPALS_MAX) {
            return new Rejected(
                    Code.LIMIT, "barredPrincipalsMax (" + BARRED_PRINCIPALS_MAX + ") reached: reinstate some first", 0);
        }
        if (c.barred()) {
            state.barredPrincipals.add(c.principal());
        }
        // A copy in id order: ending a session removes it from the index being read.
        for (long id : new ArrayList<>(state.sessions.of(c.principal()))) {
            SessionRecord s = state.sessions.existing(id);
            lifecycle.endSession(s, TenureEnd.REVOKED, s.deadlineMs);
        }
        return new Ok();
    }

    Result reinstate(ReinstatePrincipal c) {
        Rejected bad = named(c.principal());
        if (bad != null) {
            return bad;
        }
        state.barredPrincipals.remove(c.principal());
        return new Ok();
    }

    /** A refusal if {@code principal} is barred: it may not open or resume a session; else null. */
    @Nullable
    Rejected barred(String principal) {
        if (principal == null || !state.barredPrincipals.contains(principal)) {
            return null;
        }
        return new Rejected(
                Code.DENIED,
                "principal " + principal + " was revoked (a node's ACL reload removed it): it may not open or"
                        + " resume a session until a reload names it again",
                0);
    }

    private @Nullable Rejected named(String principal) {
        Rejected bad = Shapes.principal(principal, state.limits);
        if (bad != null) {
            return bad;
        }
        return principal.isEmpty() ? Shapes.invalid("a revocation must name a principal") : null;
    }
}
