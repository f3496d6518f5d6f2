package dev.tenure.client.internal;

import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The delay before the next try after consecutive failures across a list of endpoints: "full
 * jitter" (uniform between zero and an exponential ceiling), so that clients that failed together
 * do not retry together.
 *
 * <p>Why jitter: a leader failover fails every client's calls at the same instant. With fixed
 * delays they all come back at the same instants (0, 50, 150, 350 ms, ...), each time as one burst
 * at the nodes that are electing a leader. Drawing each delay from [0, ceiling) spreads them over
 * the ceiling. Each later round's mean is the fixed delay it replaces; the first round, immediate
 * before, now waits 25 ms on average, the price of not answering a failover with one burst.
 */
public final class Backoff {
    /** The ceiling of the first round, in which each failure moves on to another endpoint. */
    static final long FIRST_ROUND_NANOS_MAX = TimeUnit.MILLISECONDS.toNanos(50);

    static final long BASE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long CEILING_NANOS_MAX = TimeUnit.SECONDS.toNanos(1);

    private Backoff() {}

    /**
     * A delay drawn uniformly from [0, {@link #ceilingNanos}); {@code random} is the client's
     * ({@code TimeSource.random()}), seeded in the simulation so that a run replays.
     */
    public static long delayNanos(int consecutiveFailures, int endpoints, RandomGenerator random) {
        return random.nextLong(ceilingNanos(consecutiveFailures, endpoints));
    }

    /**
     * The first round (one try per other endpoint; with one endpoint, one retry) stays short, a
     * 50 ms ceiling: each failure already moved to another endpoint, and a healthy node is likely
     * among them. After that, 100 ms doubling to 1 s (delays of 50, 100, 200, 400, then 500 ms on
     * average), so a cluster without quorum is not hammered.
     */
    public static long ceilingNanos(int consecutiveFailures, int endpoints) {
        int firstRound = Math.max(endpoints, 2) - 1;
        if (consecutiveFailures <= firstRound) {
            return FIRST_ROUND_NANOS_MAX;
        }
        int exponent = Math.min(consecutiveFailures - firstRound - 1, 4);
        return Math.min(BASE_NANOS << exponent, CEILING_NANOS_MAX);
    }
}
