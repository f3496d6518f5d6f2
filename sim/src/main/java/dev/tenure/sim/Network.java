package dev.tenure.sim;

import java.util.SplittableRandom;

/**
 * The links between client processes and nodes: how long a frame takes, which frames are lost or
 * duplicated, and which directions are partitioned until when.
 *
 * <p>What a frame may suffer follows what a TCP connection carrying gRPC allows, so that the
 * simulation cannot report a failure the real system could never see: frames of one call stay in
 * order (the caller keeps a per-call floor), frames of different calls overtake each other
 * freely, and a partitioned direction holds its frames until it heals (TCP retransmits; nothing
 * on the wire times a quiet connection out, since neither side sends HTTP/2 pings). Loss and
 * duplication apply to whole unary calls only (see {@link SimCall}).
 */
final class Network {
    enum Dir {
        UP, // client to node
        DOWN; // node to client

        /** This direction's index in a link's blocked-until pair. */
        int index() {
            return this == UP ? 0 : 1;
        }
    }

    final SplittableRandom random;
    final SimConfig config;
    /** [client slot][node][dir]: the direction is partitioned until then. */
    private final long[][][] blockedUntil;

    private long stormUntilNanos;

    Network(SplittableRandom random, SimConfig config) {
        this.random = random;
        this.config = config;
        this.blockedUntil = new long[config.clients()][config.nodes()][2];
    }

    /** When a frame sent now on this link in this direction arrives, before the per-call floor. */
    long arrivalNanos(long nowNanos, int slot, int node, Dir dir) {
        long start = Math.max(nowNanos, blockedUntil[slot][node][dir.index()]);
        return start + latencyNanos(nowNanos);
    }

    private long latencyNanos(long nowNanos) {
        long l = config.baseLatencyNanos() + random.nextLong(config.jitterNanos() + 1);
        double spike = nowNanos < stormUntilNanos ? 0.5 : config.spikeProbability();
        if (random.nextDouble() < spike) {
            l += random.nextLong(config.spikeMaxNanos() + 1);
        }
        return l;
    }

    /** A unary call's request or reply is lost (the caller sees the attempt fail later). */
    boolean lose() {
        return random.nextDouble() < config.lossProbability();
    }

    /** A unary request reaches the node twice (a proxy retried it). */
    boolean duplicate() {
        return random.nextDouble() < config.duplicateProbability();
    }

    /** How long a caller takes to notice a lost unary call: its attempt deadline, in effect. */
    long lossDetectionNanos() {
        return ms(100) + random.nextLong(ms(500));
    }

    void partition(int slot, int node, Dir dir, long untilNanos) {
        long[] d = blockedUntil[slot][node];
        d[dir.index()] = Math.max(d[dir.index()], untilNanos);
    }

    /** Until {@code untilNanos}, half of all frames take a latency spike. */
    void storm(long untilNanos) {
        stormUntilNanos = Math.max(stormUntilNanos, untilNanos);
    }

    static long ms(long millis) {
        return millis * 1_000_000;
    }
}
