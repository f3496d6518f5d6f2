package dev.tenure.lab.scenario;

import dev.tenure.lab.process.LabNetwork;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * The fault schedule of a randomized run, derived from the seed alone: the same seed, duration,
 * worker count and clock option give the same schedule, so a failing run's schedule can be
 * replayed. About half the faults start while the previous one is still in force, so faults
 * overlap: a node fault during a worker's partition, two workers cut off at once. Two node faults
 * (kills, pauses, partitions between nodes) never overlap (a quorum of the three nodes stays
 * possible, so every violation means a bug, not a lost majority), and neither do two faults of
 * one worker. Half the node faults hit whichever node leads when they start.
 */
public final class Nemesis {
    /** Quiet time before the first fault: workers start and take the lock first. */
    static final long LEAD_IN_MS = 3_000;
    /** How far a worker's wall clock is stepped: an NTP step, a VM restored from a snapshot. */
    static final long CLOCK_STEP_S = 3_600;

    private Nemesis() {}

    /** A node step's target meaning "whichever node leads when the step starts". */
    public static final int LEADER = -1;

    /** What a step does; {@code %s} in the pattern is the target ("node 1", "the leader", "w2"). */
    public enum Kind {
        /** SIGKILL of a node; restarted (same data) when the step ends. */
        KILL_NODE("kill -9 %s", 2_000, 6_000),
        /** SIGSTOP of a node (a long GC or VM pause); SIGCONT when the step ends. */
        PAUSE_NODE("pause %s", 1_000, 5_000),
        /**
         * No packet between a node and the other nodes, either way (nft in the hub); workers and the
         * lab still reach it, as a deposed leader's clients do. Only with network namespaces.
         */
        ISOLATE_NODE("cut %s off from the other nodes", 2_000, 8_000),
        /** No packet to or from a node at all: nodes, workers and the lab lose it. */
        ISOLATE_NODE_FULLY("cut %s off from everyone", 2_000, 8_000),
        /** A node receives nothing from the other nodes but still sends to them (one-way). */
        DEAF_NODE("make %s deaf to the other nodes", 2_000, 8_000),
        /** The other nodes receive nothing from a node, which still hears them (one-way). */
        MUTE_NODE("make the other nodes deaf to %s", 2_000, 8_000),
        /**
         * The link between a node and the next one (by id, cyclic) cut both ways; the third node
         * still reaches both, so each side of the cut has a path to a majority.
         */
        CUT_LINK("cut the link between %s and the next node", 2_000, 8_000),
        /** Every link between one worker slot and the lock service silent (no data, no FIN). */
        PARTITION_CLIENT("partition worker %s", 2_000, 8_000),
        /** Every connection of one worker slot to the lock service reset (RST), new ones too. */
        RESET_CLIENT("reset links of worker %s", 500, 2_000),
        /** One worker slot's links to the lock service delayed. */
        DELAY_CLIENT("delay links of worker %s", 1_000, 4_000),
        /** SIGSTOP of one worker slot's current process (a GC pause in the client). */
        PAUSE_CLIENT("pause worker %s", 1_000, 8_000),
        /**
         * One worker slot's wall clock stepped by an hour, forward or back, and back again when the
         * step ends (libfaketime; only where it is installed). Leases run on the monotonic clock.
         */
        STEP_CLIENT_CLOCK("step wall clock of worker %s", 2_000, 8_000);

        final String pattern;
        final long minMs;
        final long maxMs;

        Kind(String pattern, long minMs, long maxMs) {
            this.pattern = pattern;
            this.minMs = minMs;
            this.maxMs = maxMs;
        }

        boolean onNode() {
            return compareTo(PARTITION_CLIENT) < 0; // the kinds before PARTITION_CLIENT act on a node
        }

        /** Needs the nodes in network namespaces: a kernel rule between them. */
        boolean needsNamespaces() {
            return onNode() && this != KILL_NODE && this != PAUSE_NODE;
        }
    }

    /** The kinds a run can draw: clock steps need libfaketime, node partitions network namespaces. */
    public static Set<Kind> kinds(boolean clockSteps, boolean namespaces) {
        Set<Kind> kinds = EnumSet.allOf(Kind.class);
        kinds.removeIf(k -> (!clockSteps && k == Kind.STEP_CLIENT_CLOCK) || (!namespaces && k.needsNamespaces()));
        return kinds;
    }

    /**
     * One fault: at {@code atMs} after the start, on node or worker slot {@code target} ({@link
     * #LEADER} for the node leading at that moment), for {@code forMs}; {@code amount} is the clock
     * step in seconds (0 for other kinds).
     */
    public record Step(long atMs, Kind kind, int target, long forMs, long amount) {
        public Step(long atMs, Kind kind, int target, long forMs) {
            this(atMs, kind, target, forMs, 0);
        }

        public long endMs() {
            return atMs + forMs;
        }

        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "+%.1fs %s%s for %.1fs",
                    atMs / 1000.0,
                    what(target),
                    amount == 0 ? "" : String.format(Locale.ROOT, " by %+ds", amount),
                    forMs / 1000.0);
        }

        /** What the step does to {@code node} (the leader resolved), e.g. "pause node 2". */
        public String what(int node) {
            String name = !kind.onNode() ? "w" + node : node == LEADER ? "the leader" : "node " + node;
            return String.format(Locale.ROOT, kind.pattern, name);
        }
    }

    /** The links a node partition of {@code kind} on {@code node} cuts, among {@code nodes} nodes. */
    static List<LabNetwork.Link> links(Kind kind, int node, int nodes) {
        List<LabNetwork.Link> links = new ArrayList<>();
        for (int other = 0; other < nodes; other++) {
            if (other == node) {
                continue;
            }
            switch (kind) {
                case ISOLATE_NODE, ISOLATE_NODE_FULLY -> {
                    links.add(new LabNetwork.Link(node, other));
                    links.add(new LabNetwork.Link(other, node));
                }
                case DEAF_NODE -> links.add(new LabNetwork.Link(other, node));
                case MUTE_NODE -> links.add(new LabNetwork.Link(node, other));
                case CUT_LINK -> {
                    if (other == (node + 1) % nodes) {
                        links.add(new LabNetwork.Link(node, other));
                        links.add(new LabNetwork.Link(other, node));
                    }
                }
                default -> throw new IllegalArgumentException(kind + " is not a partition between nodes");
            }
        }
        if (kind == Kind.ISOLATE_NODE_FULLY) {
            links.add(new LabNetwork.Link(node, LabNetwork.HUB));
            links.add(new LabNetwork.Link(LabNetwork.HUB, node));
        }
        return links;
    }

    /** The schedule for {@code durationMs} of faults over {@code nodes} nodes and {@code slots} workers. */
    public static List<Step> schedule(long seed, long durationMs, int nodes, int slots, Set<Kind> available) {
        if (nodes < 1 || slots < 1 || available.isEmpty()) {
            throw new IllegalArgumentException("need at least one node, one worker and one kind of fault");
        }
        Random random = new Random(seed);
        Kind[] kinds = available.stream().sorted().toArray(Kind[]::new);
        List<Step> steps = new ArrayList<>();
        long nodesFreeAt = 0;
        long[] slotFreeAt = new long[slots];
        long at = LEAD_IN_MS;
        while (true) {
            Kind kind = kinds[random.nextInt(kinds.length)];
            long forMs = kind.minMs + (long) (random.nextDouble() * (kind.maxMs - kind.minMs));
            // A node step hits the leader one time in two: the node whose faults matter most.
            int target = !kind.onNode() ? random.nextInt(slots) : random.nextBoolean() ? LEADER : random.nextInt(nodes);
            long amount = kind == Kind.STEP_CLIENT_CLOCK ? (random.nextBoolean() ? CLOCK_STEP_S : -CLOCK_STEP_S) : 0;
            // Not while a fault of the same node group or the same worker is in force.
            at = Math.max(at, kind.onNode() ? nodesFreeAt : slotFreeAt[target]);
            if (at + forMs > durationMs) {
                return steps;
            }
            Step step = new Step(at, kind, target, forMs, amount);
            steps.add(step);
            if (kind.onNode()) {
                nodesFreeAt = step.endMs() + 1_000;
            } else {
                slotFreeAt[target] = step.endMs() + 1_000;
            }
            at = random.nextBoolean()
                    ? at + forMs / 4 + (long) (random.nextDouble() * forMs / 2) // overlaps this one
                    : step.endMs() + 1_000 + random.nextInt(2_000); // after it has healed
        }
    }
}
