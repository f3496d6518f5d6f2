package dev.tenure.server.cluster;

import io.aeron.cluster.service.ClusterClock;
import java.util.concurrent.TimeUnit;

/**
 * The leader's clock for log timestamps and replicated timers: wall time read once at start,
 * then advanced by the monotonic clock. Lease expiry is measured in these timestamps, so a wall
 * clock stepped by NTP or by hand while a node leads must neither expire every lease at once
 * (step forward) nor stop expiry (step back). Clients measure their horizons on their own
 * monotonic clocks; both sides now count elapsed time, never calendar time.
 *
 * <p>Across leaders the timestamps of two nodes may disagree by their wall clocks' offset at
 * their starts; the state machine takes {@code max(previous, timestamp)} and restarts every
 * deadline at now + TTL on a new term, so an offset can only lengthen a lease, never shorten it.
 */
final class MonotonicClusterClock implements ClusterClock {

    private final long originMs;
    private final long originNs;

    MonotonicClusterClock() {
        this.originMs = System.currentTimeMillis();
        this.originNs = System.nanoTime();
    }

    @Override
    public TimeUnit timeUnit() {
        return TimeUnit.MILLISECONDS;
    }

    @Override
    public long time() {
        return originMs + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - originNs);
    }
}
