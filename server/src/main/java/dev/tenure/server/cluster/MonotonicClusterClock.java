package dev.tenure.server.cluster;

import io.aeron.cluster.service.ClusterClock;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.EpochClock;

/**
 * Every clock a node gives Aeron: wall time read once, when the process starts, then advanced by
 * the monotonic clock, so a wall clock stepped by NTP or by hand changes nothing in the node.
 *
 * <p>Two things depend on it. Lease expiry is measured in the leader's log timestamps and
 * replicated timers: a forward step must not expire every lease at once, nor a backward step
 * stop expiry (clients measure their horizons on their own monotonic clocks; both sides count
 * elapsed time, never calendar time). And Aeron's own liveness checks between a client and its
 * media driver compare epoch timestamps: read from the wall clock, a forward step of more than
 * the driver timeout makes every Aeron client in the node declare the driver dead and exit.
 *
 * <p>Across leaders the timestamps of two nodes may disagree by their wall clocks' offset at
 * their starts; the state machine takes {@code max(previous, timestamp)} and restarts every
 * deadline at now + TTL on a new term, so an offset can only lengthen a lease, never shorten it.
 */
public final class MonotonicClusterClock implements ClusterClock, EpochClock {

    /** One anchor per process: Aeron components in one node must agree on epoch time. */
    public static final MonotonicClusterClock INSTANCE = new MonotonicClusterClock();

    private final long originMs;
    private final long originNs;

    private MonotonicClusterClock() {
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
