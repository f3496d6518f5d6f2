package dev.tenure.client.internal;

import java.util.concurrent.TimeUnit;

/** The delay before the next try after consecutive failures across a list of endpoints. */
public final class Backoff {
    static final long BASE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(1);

    private Backoff() {}

    /**
     * The first round is immediate: each failure already moved to another endpoint, and a healthy
     * node is likely among them (with one endpoint, one immediate retry). After that, 50 ms
     * doubling to 1 s, so a cluster without quorum is not hammered.
     */
    public static long delayNanos(int consecutiveFailures, int endpoints) {
        int immediate = Math.max(endpoints, 2) - 1;
        if (consecutiveFailures <= immediate) {
            return 0;
        }
        int exponent = Math.min(consecutiveFailures - immediate - 1, 5);
        return Math.min(BASE_NANOS << exponent, MAX_NANOS);
    }
}
