package dev.tenure.server.admin;

import dev.tenure.core.Change;
import dev.tenure.core.TenureEnd;
import dev.tenure.server.cluster.ReplicaListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The replicated lease metrics: grants, ends by reason, hold and handoff times, leader changes,
 * counted from the changes this node's replica applies. Every replica applies the same log, so
 * nodes that have run since the same point export the same values: across nodes take the max,
 * not the sum. Times are state-machine time (the leader's log timestamps), not this node's clock,
 * so they agree across nodes too.
 *
 * <p>No label carries a lock name: names are user data, unbounded. Per-lock detail is in
 * {@code tenure status LOCK} and {@code tenure locks}.
 *
 * <p>Threads: {@link ReplicaListener}'s methods run on the service thread, which alone reads and
 * writes the two maps; the meters are safe to scrape from any thread.
 */
final class LeaseMetrics implements ReplicaListener {
    /**
     * Leases whose grant time is remembered, to measure their hold time at their end. The state's
     * own limits bound the leases held at once; this bounds the map whatever they are set to, and
     * a lease evicted from it ends unmeasured.
     */
    static final int LEASES_TRACKED_MAX = 100_000;
    /** Ends remembered to measure the handoff to the lock's next grant; older ones are dropped. */
    static final int ENDS_TRACKED_MAX = 10_000;

    static final Duration[] HOLD_BUCKETS = seconds(0.01, 0.1, 1, 5, 10, 30, 60, 300, 600, 1800, 3600, 86_400);
    static final Duration[] HANDOFF_BUCKETS = seconds(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60, 300);
    static final double[] SNAPSHOT_BYTES_BUCKETS = {1 << 10, 1 << 14, 1 << 17, 1 << 20, 1 << 23, 1 << 26, 1 << 29};

    private final Counter grants;
    private final Map<TenureEnd, Counter> ends = new EnumMap<>(TenureEnd.class);
    private final Timer hold;
    private final Timer handoff;
    private final Counter leaderChanges;
    private final Timer snapshotWrite;
    private final DistributionSummary snapshotSize;

    /** Grant time (state-machine ms) by token: tokens are unique, so no lock name is kept. */
    private final Map<Long, Long> grantedAtMs = bounded(LEASES_TRACKED_MAX);
    /** End time (state-machine ms) by the token that ended. */
    private final Map<Long, Long> endedAtMs = bounded(ENDS_TRACKED_MAX);

    LeaseMetrics(MeterRegistry registry) {
        grants = Counter.builder("tenure.grants")
                .description("Leases granted (replicated: the same on every node, take max)")
                .register(registry);
        for (TenureEnd end : TenureEnd.values()) {
            if (end != TenureEnd.NONE) {
                ends.put(
                        end,
                        Counter.builder("tenure.lease.ends")
                                .description("Leases ended, by how (replicated: take max)")
                                .tag("reason", end.name().toLowerCase(java.util.Locale.ROOT))
                                .register(registry));
            }
        }
        hold = Timer.builder("tenure.hold")
                .description("How long each lease was held, grant to end (replicated, state-machine time)")
                .serviceLevelObjectives(HOLD_BUCKETS)
                .register(registry);
        handoff = Timer.builder("tenure.handoff")
                .description(
                        "From a lease's end to the next grant on the same lock (replicated," + " state-machine time)")
                .serviceLevelObjectives(HANDOFF_BUCKETS)
                .register(registry);
        leaderChanges = Counter.builder("tenure.leader.changes")
                .description("Leadership terms begun, as this node's replica applied them (replicated: take max)")
                .register(registry);
        snapshotWrite = Timer.builder("tenure.snapshot.write")
                .description("Encoding the state and writing it to the archive's snapshot recording (per"
                        + " node); the archive's fsync is Aeron's and not seen here")
                .serviceLevelObjectives(seconds(0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120))
                .register(registry);
        snapshotSize = DistributionSummary.builder("tenure.snapshot.size")
                .description("Size of each state snapshot this node wrote (per node)")
                .baseUnit("bytes")
                .serviceLevelObjectives(SNAPSHOT_BYTES_BUCKETS)
                .register(registry);
    }

    @Override
    public void restarted() {
        // Tenures granted before the replica's start point are not known here: not measured.
        grantedAtMs.clear();
        endedAtMs.clear();
    }

    @Override
    public void applied(List<Change> changes) {
        for (Change c : changes) {
            if (c.kind() == Change.Kind.GRANTED) {
                granted(c);
            } else if (c.kind() == Change.Kind.ENDED) {
                ended(c);
            }
        }
    }

    private void granted(Change c) {
        grants.increment();
        grantedAtMs.put(c.token(), c.atMs());
        if (c.previousToken() != 0) {
            Long endMs = endedAtMs.remove(c.previousToken());
            if (endMs != null) {
                handoff.record(Math.max(0, c.atMs() - endMs), TimeUnit.MILLISECONDS);
            }
        }
    }

    private void ended(Change c) {
        Counter byReason = ends.get(c.end());
        if (byReason != null) {
            byReason.increment();
        }
        Long grantMs = grantedAtMs.remove(c.token());
        if (grantMs != null) {
            hold.record(Math.max(0, c.atMs() - grantMs), TimeUnit.MILLISECONDS);
        }
        endedAtMs.put(c.token(), c.atMs());
    }

    @Override
    public void newTerm(int leaderMemberId) {
        leaderChanges.increment();
    }

    @Override
    public void snapshotWritten(long bytes, long nanos) {
        snapshotWrite.record(nanos, TimeUnit.NANOSECONDS);
        snapshotSize.record((double) bytes);
    }

    static Duration[] seconds(double... values) {
        Duration[] out = new Duration[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = Duration.ofNanos(Math.round(values[i] * 1e9));
        }
        return out;
    }

    private static Map<Long, Long> bounded(int max) {
        return new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
                return size() > max;
            }
        };
    }
}
