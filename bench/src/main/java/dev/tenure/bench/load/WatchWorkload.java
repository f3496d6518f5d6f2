package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.WatchEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The uncontended cycle (each client acquires and releases a lock of its own, back to back) with
 * {@code --watchers} watches of every lock the cycle uses. It reports the cycle as {@code
 * uncontended} does, and how long a grant takes to reach the watches: from the moment the
 * acquiring client has its grant acknowledged to the moment each watch receives the GRANTED
 * event, both read in this JVM on one monotonic clock. A watch is served by its node's replica
 * after the same apply that answers the acquire, so an event may arrive before the
 * acknowledgement: it counts as 0 and in {@code watch_events_before_ack}.
 */
final class WatchWorkload {

    private WatchWorkload() {}

    /** One grant's acknowledgement time, and the watches that saw it before it. */
    private static final class Grant {
        long ackNanos;
        int early;
    }

    static Figures run(LoadConfig config) throws InterruptedException {
        String prefix = "bench-watch-" + Clients.runId() + "-";
        ConcurrentHashMap<Long, Grant> grants = new ConcurrentHashMap<>();
        Recorder latency = new Recorder(1_000, 3_600_000_000_000L, 3);
        LongAdder beforeAck = new LongAdder();
        // Set when the closed loop starts: grants acknowledged in its warm-up are not measured.
        AtomicLong measureFrom = new AtomicLong(Long.MAX_VALUE);
        try (Clients clients = new Clients();
                Watchers watchers = Watchers.start(clients, config, "watch", config.watchers(), prefix, seen -> {
                    if (seen.event().kind() == WatchEvent.Kind.GRANTED) {
                        received(grants, seen.event().token(), seen.atNanos(), measureFrom.get(), latency, beforeAck);
                    }
                })) {
            List<ClosedLoop.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                Session session = clients.open(config, "watch-" + i).openSession();
                String lock = prefix + i;
                cycles.add(() -> {
                    long start = System.nanoTime();
                    Lease lease = session.acquire(lock);
                    long acked = System.nanoTime();
                    acknowledged(grants, lease.token(), acked, measureFrom.get(), latency, beforeAck);
                    lease.release();
                    return System.nanoTime() - start;
                });
            }
            measureFrom.set(System.nanoTime() + config.warmup().toNanos());
            Figures f = ClosedLoop.run("watch", config, cycles);
            Histogram h = latency.getIntervalHistogram();
            return clients.withReplacements(f.with("latency", "acquire+release")
                    .with("watchers", config.watchers())
                    .with("watch_events", watchers.events())
                    .with("watch_grant_events_measured", h.getTotalCount())
                    .with("watch_event_p50_ms", percentileMs(h, 50))
                    .with("watch_event_p99_ms", percentileMs(h, 99))
                    .with("watch_event_max_ms", h.getTotalCount() == 0 ? 0 : h.getMaxValue() / 1e6)
                    .with("watch_events_before_ack", beforeAck.sum())
                    .with("watches_ended", watchers.ended()));
        }
    }

    private static double percentileMs(Histogram h, double p) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(p) / 1e6;
    }

    /** The acquirer has its grant: samples for the watches that saw it already, and the time for the rest. */
    private static void acknowledged(
            ConcurrentHashMap<Long, Grant> grants,
            long token,
            long ackNanos,
            long measureFrom,
            Recorder latency,
            LongAdder beforeAck) {
        Grant g = grants.computeIfAbsent(token, t -> new Grant());
        int early;
        synchronized (g) {
            g.ackNanos = ackNanos;
            early = g.early;
        }
        if (ackNanos >= measureFrom) {
            for (int i = 0; i < early; i++) {
                latency.recordValue(1_000);
                beforeAck.increment();
            }
        }
    }

    /** A watch received a grant: a sample if its acknowledgement is known, else counted early. */
    private static void received(
            ConcurrentHashMap<Long, Grant> grants,
            long token,
            long atNanos,
            long measureFrom,
            Recorder latency,
            LongAdder beforeAck) {
        Grant g = grants.computeIfAbsent(token, t -> new Grant());
        long ack;
        synchronized (g) {
            ack = g.ackNanos;
            if (ack == 0) {
                g.early++;
                return;
            }
        }
        if (ack >= measureFrom) {
            latency.recordValue(Math.max(1_000, atNanos - ack));
        }
        // beforeAck is counted by acknowledged() for the early ones.
        if (atNanos < ack) {
            beforeAck.increment();
        }
    }
}
