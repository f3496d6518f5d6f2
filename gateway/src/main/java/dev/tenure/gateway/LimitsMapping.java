package dev.tenure.gateway;

import dev.tenure.core.Command;
import dev.tenure.core.Limits;
import dev.tenure.core.PrincipalLimits;
import dev.tenure.log.v1.LimitValue;
import dev.tenure.log.v1.PrincipalQuota;
import dev.tenure.log.v1.SetLimits;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** The limits a node proposes ({@link SetLimits} in the log) to and from the core's command, by name. */
public final class LimitsMapping {
    private LimitsMapping() {}

    /** What a node given {@code limits} and {@code quotas} proposes; {@code change}: its operator asked for them. */
    public static SetLimits toProto(
            Limits limits, SortedMap<String, PrincipalLimits> quotas, boolean change, int nodeId) {
        Command.SetLimits c = Command.SetLimits.of(limits, quotas, change, nodeId);
        SetLimits.Builder b = SetLimits.newBuilder().setChange(change).setNodeId(nodeId);
        c.limits().forEach((name, value) -> b.addLimits(value(name, value)));
        for (Map.Entry<String, SortedMap<String, Long>> q : c.quotas().entrySet()) {
            PrincipalQuota.Builder quota = PrincipalQuota.newBuilder().setPrincipal(q.getKey());
            q.getValue().forEach((name, value) -> quota.addLimits(value(name, value)));
            b.addQuotas(quota);
        }
        return b.build();
    }

    /** A name given twice keeps its last value; the core checks the names and values. */
    static Command.SetLimits toCommand(SetLimits s) {
        TreeMap<String, SortedMap<String, Long>> quotas = new TreeMap<>();
        for (PrincipalQuota q : s.getQuotasList()) {
            quotas.put(q.getPrincipal(), values(q.getLimitsList()));
        }
        return new Command.SetLimits(values(s.getLimitsList()), quotas, s.getChange(), s.getNodeId());
    }

    private static SortedMap<String, Long> values(Iterable<LimitValue> list) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (LimitValue v : list) {
            out.put(v.getName(), v.getValue());
        }
        return out;
    }

    private static LimitValue value(String name, long value) {
        return LimitValue.newBuilder().setName(name).setValue(value).build();
    }
}
