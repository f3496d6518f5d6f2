package dev.tenure.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * One injected fault, drawn from the seed before the run starts so that a failure can print the
 * whole schedule. {@code slot} is a client slot, {@code node} a node (-1: every node), {@code dir}
 * a direction (null: both).
 */
record Fault(
        long atNanos, Kind kind, int slot, int node, Network.@Nullable Dir dir, long durationNanos, boolean silent) {

    enum Kind {
        /** A client's link to one node or to all of them stops carrying frames, one way or both. */
        PARTITION(25),
        /** A client process stops (a GC pause or SIGSTOP): timers and network input freeze. */
        PAUSE(20),
        /** A client process dies, its connections closed by its kernel or not; it restarts later. */
        CRASH(12),
        /** The leader is deposed; after an election another node leads with its own clock. */
        LEADER_CHANGE(15),
        /** A node dies (its gateway's calls all reset; the leader's death means an election) and restarts. */
        NODE_CRASH(10),
        /** A node loses touch with the cluster while its clients still reach it (a leader loses its term). */
        ISOLATION(8),
        /** Half of all frames take a latency spike for a while. */
        STORM(8),
        /**
         * A middlebox resets one client's connection to one node; the client hears of it at once or
         * up to a TTL later. The node takes a closed connection as proof that the client died: with
         * a disconnect grace the client resumes in time or stops trusting its leases first; without
         * one, the session ends while the client, alive, counts its leases valid until its horizon
         * (the documented price of a grace of 0, see KnownIssuesTest).
         */
        RESET(10);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /** Between 3 and 10 faults, between 10% and 85% of the run, so that it starts and ends calmly. */
    static List<Fault> draw(SimConfig config, SplittableRandom r) {
        List<Kind> kinds = new ArrayList<>(List.of(Kind.values()));
        if (!config.connectionResets()) {
            kinds.remove(Kind.RESET);
        }
        int total = kinds.stream().mapToInt(k -> k.weight).sum();
        long ttl = config.ttlNanos();
        List<Fault> out = new ArrayList<>();
        int count = 3 + r.nextInt(8);
        for (int i = 0; i < count; i++) {
            long at = config.durationNanos() / 10 + r.nextLong(config.durationNanos() * 3 / 4);
            Kind kind = pick(kinds, r.nextInt(total));
            int slot = r.nextInt(config.clients());
            int node = r.nextInt(config.nodes());
            switch (kind) {
                case PARTITION -> {
                    Network.Dir dir = r.nextBoolean() ? null : r.nextBoolean() ? Network.Dir.UP : Network.Dir.DOWN;
                    long d = Network.ms(50) + r.nextLong(ttl * 5 / 2);
                    out.add(new Fault(at, kind, slot, r.nextBoolean() ? -1 : node, dir, d, false));
                }
                case PAUSE ->
                    out.add(new Fault(at, kind, slot, -1, null, Network.ms(10) + r.nextLong(ttl * 5 / 2), false));
                case CRASH ->
                    out.add(new Fault(at, kind, slot, -1, null, ttl / 5 + r.nextLong(3 * ttl), r.nextBoolean()));
                case LEADER_CHANGE ->
                    out.add(new Fault(at, kind, -1, -1, null, Network.ms(20) + r.nextLong(ttl * 3 / 2), false));
                case NODE_CRASH -> out.add(new Fault(at, kind, -1, node, null, ttl / 5 + r.nextLong(3 * ttl), false));
                case ISOLATION -> out.add(new Fault(at, kind, -1, node, null, ttl / 5 + r.nextLong(3 * ttl), false));
                case STORM -> out.add(new Fault(at, kind, -1, -1, null, ttl / 2 + r.nextLong(3 * ttl / 2), false));
                case RESET ->
                    out.add(new Fault(at, kind, slot, node, null, r.nextBoolean() ? 0 : r.nextLong(ttl), false));
            }
        }
        out.sort(Comparator.comparingLong(Fault::atNanos));
        return out;
    }

    private static Kind pick(List<Kind> kinds, int pick) {
        for (Kind k : kinds) {
            if (pick < k.weight) {
                return k;
            }
            pick -= k.weight;
        }
        throw new IllegalStateException("weights");
    }

    String describe() {
        String d = durationNanos / 1_000_000 + "ms";
        String what = switch (kind) {
            case PARTITION ->
                "partition c" + slot + (dir == null ? " <-> " : dir == Network.Dir.UP ? " -> " : " <- ")
                        + (node < 0 ? "all nodes" : "n" + node) + " for " + d;
            case PAUSE -> "pause c" + slot + " for " + d;
            case CRASH -> "crash c" + slot + (silent ? " silently" : " (connections closed)") + ", restart after " + d;
            case LEADER_CHANGE -> "leader change, election " + d;
            case NODE_CRASH -> "crash n" + node + ", restart after " + d;
            case ISOLATION -> "isolate n" + node + " from the cluster for " + d;
            case STORM -> "latency storm for " + d;
            case RESET ->
                "reset c" + slot + " <-> n" + node + (durationNanos == 0 ? "" : ", the client notices after " + d);
        };
        return Trace.formatTime(atNanos) + " " + what;
    }
}
