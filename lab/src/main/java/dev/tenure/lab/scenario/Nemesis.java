package dev.tenure.lab.scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * The fault schedule of a randomized run, derived from the seed alone: the same seed, duration,
 * worker count and clock option give the same schedule, so a failing run's schedule can be
 * replayed. About half the faults start while the previous one is still in force, so faults
 * overlap: a node fault during a worker's partition, two workers cut off at once. Two node faults
 * never overlap (a quorum of the three nodes stays possible, so every violation means a bug, not
 * a lost majority), and neither do two faults of one worker.
 */
public final class Nemesis {
    /** Quiet time before the first fault: workers start and take the lock first. */
    static final long LEAD_IN_MS = 3_000;
    /** How far a worker's wall clock is stepped: an NTP step, a VM restored from a snapshot. */
    static final long CLOCK_STEP_S = 3_600;

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
        PAUSE_CLIENT("pause worker", 1_000, 8_000),
        /**
         * One worker slot's wall clock stepped by an hour, forward or back, and back again when the
         * step ends (libfaketime; only where it is installed). Leases run on the monotonic clock.
         */
        STEP_CLIENT_CLOCK("step wall clock of worker", 2_000, 8_000);

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

    /**
     * One fault: at {@code atMs} after the start, on node or worker slot {@code target}, for
     * {@code forMs}; {@code amount} is the clock step in seconds (0 for other kinds).
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
                    "+%.1fs %s %s%d%s for %.1fs",
                    atMs / 1000.0,
                    kind.verb,
                    kind.onNode() ? "" : "w",
                    target,
                    amount == 0 ? "" : String.format(Locale.ROOT, " by %+ds", amount),
                    forMs / 1000.0);
        }
    }

    /** The schedule for {@code durationMs} of faults over {@code nodes} nodes and {@code slots} workers. */
    public static List<Step> schedule(long seed, long durationMs, int nodes, int slots, boolean clockSteps) {
        if (nodes < 1 || slots < 1) {
            throw new IllegalArgumentException("need at least one node and one worker");
        }
        Random random = new Random(seed);
        Kind[] kinds = Arrays.stream(Kind.values())
                .filter(k -> clockSteps || k != Kind.STEP_CLIENT_CLOCK)
                .toArray(Kind[]::new);
        List<Step> steps = new ArrayList<>();
        long nodesFreeAt = 0;
        long[] slotFreeAt = new long[slots];
        long at = LEAD_IN_MS;
        while (true) {
            Kind kind = kinds[random.nextInt(kinds.length)];
            long forMs = kind.minMs + (long) (random.nextDouble() * (kind.maxMs - kind.minMs));
            int target = random.nextInt(kind.onNode() ? nodes : slots);
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
