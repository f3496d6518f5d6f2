package dev.tenure.lab.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The fault schedule of a randomized run, derived from the seed alone: the same seed, duration and
 * worker count give the same schedule, so a failing run's schedule can be replayed. Faults come
 * one at a time (each is healed before the next starts), which keeps a quorum of nodes most of
 * the time and makes every violation attributable to one fault; their kinds, targets and lengths
 * vary.
 */
public final class Nemesis {
    /** Quiet time before the first fault: workers start and take the lock first. */
    static final long LEAD_IN_MS = 3_000;

    private Nemesis() {}

    /** What a step does. */
    public enum Kind {
        /** SIGKILL of a node; restarted (same data) when the step ends. */
        KILL_NODE("kill -9 node", 2_000, 6_000),
        /** SIGSTOP of a node (a long GC or VM pause); SIGCONT when the step ends. */
        PAUSE_NODE("pause node", 1_000, 5_000),
        /** Every link between one worker slot and the lock service silent (no data, no FIN). */
        PARTITION_CLIENT("partition worker", 2_000, 8_000),
        /** Every connection of one worker slot to the lock service reset (RST), new ones too. */
        RESET_CLIENT("reset links of worker", 500, 2_000),
        /** One worker slot's links to the lock service delayed. */
        DELAY_CLIENT("delay links of worker", 1_000, 4_000),
        /** SIGSTOP of one worker slot's current process (a GC pause in the client). */
        PAUSE_CLIENT("pause worker", 1_000, 8_000);

        final String verb;
        final long minMs;
        final long maxMs;

        Kind(String verb, long minMs, long maxMs) {
            this.verb = verb;
            this.minMs = minMs;
            this.maxMs = maxMs;
        }

        boolean onNode() {
            return this == KILL_NODE || this == PAUSE_NODE;
        }
    }

    /** One fault: at {@code atMs} after the start, on node or worker slot {@code target}, for {@code forMs}. */
    public record Step(long atMs, Kind kind, int target, long forMs) {
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "+%.1fs %s %s%d for %.1fs",
                    atMs / 1000.0,
                    kind.verb,
                    kind.onNode() ? "" : "w",
                    target,
                    forMs / 1000.0);
        }
    }

    /** The schedule for {@code durationMs} of faults over {@code nodes} nodes and {@code slots} workers. */
    public static List<Step> schedule(long seed, long durationMs, int nodes, int slots) {
        if (nodes < 1 || slots < 1) {
            throw new IllegalArgumentException("need at least one node and one worker");
        }
        Random random = new Random(seed);
        Kind[] kinds = Kind.values();
        List<Step> steps = new ArrayList<>();
        long at = LEAD_IN_MS;
        while (true) {
            Kind kind = kinds[random.nextInt(kinds.length)];
            long forMs = kind.minMs + (long) (random.nextDouble() * (kind.maxMs - kind.minMs));
            int target = random.nextInt(kind.onNode() ? nodes : slots);
            if (at + forMs > durationMs) {
                return steps;
            }
            steps.add(new Step(at, kind, target, forMs));
            at += forMs + 1_000 + random.nextInt(2_000);
        }
    }
}
