package dev.tenure.bench;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Acquire+release cycles against a running Tenure: N clients, each with its own session and its
 * own lock. Prints throughput and cycle latency percentiles; asserts nothing.
 *
 * <p>Usage: {@code CycleBench ENDPOINTS CLIENTS SECONDS [WARMUP_SECONDS]}
 */
public final class CycleBench {

    public static void main(String[] args) throws Exception {
        String endpoints = args.length > 0 ? args[0] : "127.0.0.1:7420";
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Result r = run(endpoints, clients, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds));
        System.out.printf(
                "{\"workload\":\"parallel\",\"clients\":%d,\"seconds\":%d,\"cycles\":%d,\"cycles_per_s\":%.0f,"
                        + "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f}%n",
                clients,
                seconds,
                r.cycles,
                r.cycles / (double) seconds,
                r.histogram.getValueAtPercentile(50) / 1e6,
                r.histogram.getValueAtPercentile(90) / 1e6,
                r.histogram.getValueAtPercentile(99) / 1e6,
                r.histogram.getMaxValue() / 1e6);
    }

    record Result(long cycles, Histogram histogram) {}

    static Result run(String endpoints, int clients, Duration warmup, Duration measure) throws Exception {
        Recorder recorder = new Recorder(3);
        AtomicBoolean measuring = new AtomicBoolean(false);
        AtomicBoolean stop = new AtomicBoolean(false);
        CountDownLatch done = new CountDownLatch(clients);
        long[] counts = new long[clients];
        List<Thread> threads = new ArrayList<>();
        try (TenureClient tenure = TenureClient.builder()
                .endpoints(endpoints)
                .sessionTtl(Duration.ofSeconds(10))
                .build()) {
            for (int i = 0; i < clients; i++) {
                int id = i;
                Session session = tenure.openSession();
                Thread t = new Thread(
                        () -> {
                            try {
                                String lock = "bench-" + id;
                                while (!stop.get()) {
                                    long start = System.nanoTime();
                                    try (Lease lease = session.acquire(lock)) {
                                        // acquire + release is one cycle
                                    }
                                    if (measuring.get()) {
                                        recorder.recordValue(System.nanoTime() - start);
                                        counts[id]++;
                                    }
                                }
                            } finally {
                                session.close();
                                done.countDown();
                            }
                        },
                        "bench-" + i);
                threads.add(t);
                t.start();
            }
            Thread.sleep(warmup.toMillis());
            recorder.reset();
            measuring.set(true);
            Thread.sleep(measure.toMillis());
            measuring.set(false);
            Histogram h = recorder.getIntervalHistogram();
            stop.set(true);
            done.await(30, TimeUnit.SECONDS);
            long total = 0;
            for (long c : counts) {
                total += c;
            }
            return new Result(total, h);
        }
    }
}
