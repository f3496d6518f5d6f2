package dev.tenure.core;

import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Rejected;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The limits in force, as the log sets them. Limits decide outcomes at apply time, so they are
 * replicated state: every replica applies the same {@link Command.SetLimits} entry at the same
 * position, and a replay applies every command under the limits that were in force when it was
 * first applied, whatever the restarting member was given since.
 */
final class LimitsCommands {
    private final State state;
    private final Invariants invariants;

    LimitsCommands(State state, Invariants invariants) {
        this.state = state;
        this.invariants = invariants;
    }

    Result set(Command.SetLimits command) {
        Proposal c;
        try {
            c = Proposal.of(command);
        } catch (IllegalArgumentException bad) {
            return new Rejected(Code.INVALID, "node " + command.nodeId() + "'s limits: " + bad.getMessage(), 0);
        }
        List<String> differences = differences(c);
        if (state.limitsRecorded && differences.isEmpty()) {
            return new Ok();
        }
        if (state.limitsRecorded && !c.change()) {
            // A member given other limits than the cluster's would otherwise decide alike only
            // as long as no command reaches the limits where they differ: it is told, and stops.
            return new Rejected(
                    Code.INVALID,
                    "node " + c.nodeId() + " was given limits that differ from the cluster's: "
                            + String.join("; ", differences),
                    0);
        }
        return putInForce(c, differences);
    }

    /** A {@link Command.SetLimits} with its values checked and built. */
    private record Proposal(Limits limits, TreeMap<String, PrincipalLimits> quotas, boolean change, int nodeId) {
        static Proposal of(Command.SetLimits c) {
            Limits limits = Limits.defaults().withAll(c.limits());
            TreeMap<String, PrincipalLimits> quotas = new TreeMap<>();
            for (var q : c.quotas().entrySet()) {
                Rejected bad = Shapes.principal(q.getKey(), limits);
                if (bad != null || q.getKey().isEmpty()) {
                    throw new IllegalArgumentException(bad != null ? bad.message() : "a quota must name its principal");
                }
                for (String name : q.getValue().keySet()) {
                    if (!PrincipalLimits.NAMES.containsValue(name)) {
                        throw new IllegalArgumentException("the quota of principal " + q.getKey() + " names " + name
                                + ", which is no per-principal limit; they are "
                                + PrincipalLimits.NAMES.values());
                    }
                }
                quotas.put(q.getKey(), limits.withAll(q.getValue()).principal());
            }
            return new Proposal(limits, quotas, c.change(), c.nodeId());
        }
    }

    /**
     * The new limits must hold what the state already holds: the invariants hold every count to
     * its limit, so they are checked under the new ones first. Nothing is dropped to make room
     * (every record there was acknowledged to a client), and nothing changes if they do not hold.
     */
    private Result putInForce(Proposal c, List<String> differences) {
        Limits limitsBefore = state.limits;
        TreeMap<String, PrincipalLimits> quotasBefore = state.quotas;
        state.limits = c.limits();
        state.quotas = c.quotas();
        try {
            invariants.checkAll();
        } catch (InvariantViolation over) {
            state.limits = limitsBefore;
            state.quotas = quotasBefore;
            return new Rejected(
                    Code.LIMIT,
                    "node " + c.nodeId() + "'s limits (" + String.join("; ", differences)
                            + ") hold less than the state already does: " + over.getMessage()
                            + "; nothing changed",
                    0);
        }
        state.limitsRecorded = true;
        return new Ok();
    }

    /** Each limit and quota in which {@code c} differs from the state's, as "name: node N has X, the cluster Y". */
    private List<String> differences(Proposal c) {
        List<String> out = new ArrayList<>();
        for (String name : Limits.names()) {
            long proposed = c.limits().get(name);
            long inForce = state.limits.get(name);
            if (proposed != inForce) {
                out.add(name + ": node " + c.nodeId() + " has " + proposed + ", the cluster " + inForce);
            }
        }
        TreeSet<String> principals = new TreeSet<>(state.quotas.keySet());
        principals.addAll(c.quotas().keySet());
        for (String principal : principals) {
            PrincipalLimits proposed =
                    c.quotas().getOrDefault(principal, c.limits().principal());
            PrincipalLimits inForce = state.quota(principal);
            for (Map.Entry<String, String> e : PrincipalLimits.NAMES.entrySet()) {
                long p = Limits.component(proposed, e.getKey());
                long f = Limits.component(inForce, e.getKey());
                if (p != f) {
                    out.add(e.getValue() + " of principal " + principal + ": node " + c.nodeId() + " has " + p
                            + ", the cluster " + f);
                }
            }
        }
        return out;
    }
}
