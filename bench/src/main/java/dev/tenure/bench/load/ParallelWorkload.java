package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Clients that never contend: each has its own connection, its own session and its own lock, and
 * repeats acquire + release ({@code uncontended} with one client, {@code parallel} with many), or
 * acquire + fenced KV put + release ({@code fenced-write}), or acquire + release with a pause after
 * each cycle ({@code sporadic}). The latency is the whole cycle, as the client sees it.
 */
final class ParallelWorkload {

    private static final byte[] VALUE = "bench-value-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

    /**
     * Longer than any agent's hot window (20 ms) plus its back-off to the longest park, so that
     * each sporadic request finds the node at rest, as a lock taken now and then does.
     */
    static final Duration SPORADIC_PAUSE = Duration.ofMillis(200);

    private ParallelWorkload() {}

    static Figures run(String workload, LoadConfig config, boolean fencedWrite) throws InterruptedException {
        return run(workload, config, fencedWrite, Duration.ZERO);
    }

    /** One client, acquire + release, then {@link #SPORADIC_PAUSE}: what a request costs on an idle node. */
    static Figures sporadic(LoadConfig config) throws InterruptedException {
        return run("sporadic", config, false, SPORADIC_PAUSE).with("pause_ms", SPORADIC_PAUSE.toMillis());
    }

    private static Figures run(String workload, LoadConfig config, boolean fencedWrite, Duration pause)
            throws InterruptedException {
        String run = Clients.runId();
        try (Clients clients = new Clients()) {
            List<ClosedLoop.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                Session session = clients.open(config, workload + "-" + i).openSession();
                String lock = "bench-" + workload + "-" + run + "-" + i;
                String key = lock + "/value";
                cycles.add(() -> {
                    long start = System.nanoTime();
                    try (Lease lease = session.acquire(lock)) {
                        if (fencedWrite) {
                            session.kv().put(key, VALUE, lease.lock(), lease.token());
                        }
                    }
                    long latency = System.nanoTime() - start;
                    if (!pause.isZero()) {
                        Thread.sleep(pause.toMillis());
                    }
                    return latency;
                });
            }
            Figures f = ClosedLoop.run(workload, config, cycles);
            return clients.withReplacements(f.with("latency", fencedWrite ? "acquire+put+release" : "acquire+release"));
        }
    }
}
