package dev.tenure.sim;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * One run's shape, drawn from its seed: sizes, the TTL, the network's habits and every clock's
 * drift. Clock drift stays within what the client's drift margin covers (TTL/20 for these TTLs):
 * clients run at 1 ± 2.5%, nodes at 1 ± 1.5%, so client and leader differ by at most 4% over a TTL,
 * leaving 1% for the server's millisecond rounding. Node clocks also start up to two TTLs apart:
 * a new leader's clock may jump either way, which is what {@code onNewTerm} is for. {@code permits}
 * (2 or 3) is what every acquire of the semaphore {@link World#SEMAPHORE} names.
 */
// The per-client and per-node arrays are only read by index: a config is never compared or hashed.
@SuppressWarnings("ArrayRecordComponent")
record SimConfig(
        long seed,
        Mutation mutation,
        boolean connectionResets,
        boolean reacquireGivenUpLocks,
        int clients,
        int nodes,
        int locks,
        long ttlMs,
        long durationNanos,
        long baseLatencyNanos,
        long jitterNanos,
        double spikeProbability,
        long spikeMaxNanos,
        double lossProbability,
        double duplicateProbability,
        long[] clientPpm,
        long[] nodePpm,
        long[] nodeOffsetMs,
        long graceMs,
        int permits) {

    static final long CLIENT_PPM_MAX = 25_000;
    static final long NODE_PPM_MAX = 15_000;
    static final long[] TTLS_MS = {400, 600, 1_000, 1_500};

    /**
     * Deliberately broken variants, each of which the checkers must catch. The gateway's are the
     * server's own gateway code with one rule broken (see Node).
     */
    enum Mutation {
        NONE,
        /** The server does not restart deadlines on a new leadership term. */
        NO_TERM_RESTART,
        /** The client keeps no drift margin (horizon = send time + TTL) while clocks drift. */
        ZERO_DRIFT_MARGIN,
        /** A node acknowledges a keepalive on receipt instead of once it is committed. */
        ACK_BEFORE_COMMIT,
        /** A node confirms the client's disconnect grace but ends a closed stream's session at once. */
        GRACE_NOT_KEPT
    }

    /**
     * What a run checks beyond the basics. {@code connectionResets}: middleboxes may reset a
     * client's connection (see {@link Fault.Kind#RESET}). {@code disconnectGrace}: clients ask for
     * a disconnect grace (a quarter, half or all of the TTL); without one, a reset ends the session
     * of a live client before its horizon, the documented price of the fastest handover (see
     * KnownIssuesTest). {@code reacquireGivenUpLocks}: the workload may acquire a lock again in a
     * session that gave up on an acquire or lease of it (see {@link App}).
     */
    record Options(
            Mutation mutation, boolean connectionResets, boolean reacquireGivenUpLocks, boolean disconnectGrace) {
        static final Options DEFAULT = new Options(Mutation.NONE, true, false, true);

        /** A broken variant, with resets and a grace only where the mutation is about them. */
        static Options mutated(Mutation mutation) {
            boolean grace = mutation == Mutation.GRACE_NOT_KEPT;
            return new Options(mutation, grace, false, grace);
        }
    }

    static SimConfig draw(long seed, SplittableRandom r, Options options) {
        int clients = 3 + r.nextInt(3);
        int nodes = 3;
        long ttlMs = TTLS_MS[r.nextInt(TTLS_MS.length)];
        long[] clientPpm = new long[clients];
        Arrays.setAll(clientPpm, i -> r.nextLong(-CLIENT_PPM_MAX, CLIENT_PPM_MAX + 1));
        long[] nodePpm = new long[nodes];
        Arrays.setAll(nodePpm, i -> r.nextLong(-NODE_PPM_MAX, NODE_PPM_MAX + 1));
        long[] nodeOffsetMs = new long[nodes];
        Arrays.setAll(nodeOffsetMs, i -> r.nextLong(-2 * ttlMs, 2 * ttlMs + 1));
        return new SimConfig(
                seed,
                options.mutation(),
                options.connectionResets(),
                options.reacquireGivenUpLocks(),
                clients,
                nodes,
                1 + r.nextInt(2),
                ttlMs,
                Network.ms(ttlMs) * (16 + r.nextInt(10)),
                r.nextLong(Network.ms(5) + 1),
                r.nextLong(Network.ms(10) + 1),
                r.nextDouble() * 0.03,
                Network.ms(ttlMs) * 3 / 2,
                r.nextDouble() * 0.03,
                r.nextDouble() * 0.03,
                clientPpm,
                nodePpm,
                nodeOffsetMs,
                // From its own stream, so that every other draw of a seed stays what it was.
                options.disconnectGrace() ? ttlMs / graceDivisor(seed) : 0,
                2 + new SplittableRandom(seed ^ 0x5e3a_f0e1L).nextInt(2));
    }

    /** 1, 2 or 4: the grace is the TTL, half or a quarter of it. */
    private static int graceDivisor(long seed) {
        return 1 << new SplittableRandom(~seed).nextInt(3);
    }

    long ttlNanos() {
        return Network.ms(ttlMs);
    }

    /** The system properties with which {@code SimulationTest} replays this run. */
    String replayFlags() {
        return "-Dtenure.sim.seed=" + seed
                + (mutation == Mutation.NONE ? "" : " -Dtenure.sim.mutation=" + mutation)
                + " -Dtenure.sim.resets=" + connectionResets
                + " -Dtenure.sim.grace=" + (graceMs > 0)
                + (reacquireGivenUpLocks ? " -Dtenure.sim.reacquire=true" : "");
    }

    String summary() {
        return "clients=" + clients + " nodes=" + nodes + " locks=" + locks + " ttl=" + ttlMs + "ms duration="
                + durationNanos / 1_000_000 + "ms latency=" + baseLatencyNanos / 1000 + "us+" + jitterNanos / 1000
                + "us spikes=" + pct(spikeProbability) + " loss=" + pct(lossProbability) + " dup="
                + pct(duplicateProbability) + " clientPpm=" + Arrays.toString(clientPpm) + " nodePpm="
                + Arrays.toString(nodePpm) + " nodeOffsetMs=" + Arrays.toString(nodeOffsetMs)
                + (mutation == Mutation.NONE ? "" : " MUTATION=" + mutation)
                + (connectionResets ? " resets=on" : "")
                + (graceMs > 0 ? " grace=" + graceMs + "ms" : "")
                + " permits=" + permits
                + (reacquireGivenUpLocks ? " reacquireGivenUpLocks=on" : "");
    }

    private static String pct(double p) {
        return Math.round(p * 1000) / 10.0 + "%";
    }
}
