package dev.tenure.core;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The limits block of a version 7 snapshot, after the KV and before the trailer:
 *
 * <pre>
 * limits   recorded u8, [limits, quotas count i32, ascending principal: principal str, limits]
 * limits = count i32, ascending name: name str, value i64
 * </pre>
 *
 * <p>{@code recorded} 0: the log has not set the limits yet, and the restoring member's own are in
 * force, as in a version 6 snapshot. Limits go by name, so a limit a later release adds is read
 * from a snapshot without it at its default, and a name this build does not know is refused as
 * corruption. A quota lists every per-principal limit by the name its refusals give. What the
 * block names fills in {@link Limits#defaults()}, never the member's own limits: a replica
 * restores the same limits whatever it was given.
 */
final class SnapshotLimits {
    private SnapshotLimits() {}

    static void write(SnapshotWriter w, State state) {
        w.bool(state.limitsRecorded);
        if (!state.limitsRecorded) {
            return;
        }
        writeValues(w, state.limits.values());
        w.i32(state.quotas.size());
        for (Map.Entry<String, PrincipalLimits> q : state.quotas.entrySet()) {
            w.string(q.getKey());
            writeValues(w, perPrincipal(q.getValue()));
        }
    }

    static void read(SnapshotReader r, State state) {
        if (!r.bool()) {
            return;
        }
        Limits limits = limits(Limits.defaults(), readValues(r));
        TreeMap<String, PrincipalLimits> quotas = new TreeMap<>();
        int count = r.count(8);
        for (int i = 0; i < count; i++) {
            String principal = r.nonNullString();
            if (!quotas.isEmpty() && principal.compareTo(quotas.lastKey()) <= 0) {
                throw SnapshotCodec.corrupt("quota principals out of order at " + principal);
            }
            quotas.put(principal, limits(limits, readValues(r)).principal());
        }
        state.limits = limits;
        state.quotas = quotas;
        state.limitsRecorded = true;
    }

    /** A quota's values by the names its refusals give, e.g. kvBytesPerPrincipalMax. */
    static SortedMap<String, Long> perPrincipal(PrincipalLimits quota) {
        TreeMap<String, Long> out = new TreeMap<>();
        for (Map.Entry<String, String> e : PrincipalLimits.NAMES.entrySet()) {
            out.put(e.getValue(), Limits.component(quota, e.getKey()));
        }
        return out;
    }

    private static Limits limits(Limits base, SortedMap<String, Long> values) {
        try {
            return base.withAll(values);
        } catch (IllegalArgumentException e) {
            throw SnapshotCodec.corrupt("limits: " + e.getMessage());
        }
    }

    private static void writeValues(SnapshotWriter w, SortedMap<String, Long> values) {
        w.i32(values.size());
        for (Map.Entry<String, Long> e : values.entrySet()) {
            w.string(e.getKey());
            w.i64(e.getValue());
        }
    }

    private static SortedMap<String, Long> readValues(SnapshotReader r) {
        TreeMap<String, Long> values = new TreeMap<>();
        int count = r.count(12);
        for (int i = 0; i < count; i++) {
            String name = r.nonNullString();
            if (!values.isEmpty() && name.compareTo(values.lastKey()) <= 0) {
                throw SnapshotCodec.corrupt("limit names out of order at " + name);
            }
            values.put(name, r.i64());
        }
        return values;
    }
}
