package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import java.util.ArrayList;
import java.util.List;

/**
 * Every client on one semaphore of {@link #PERMITS} permits: each acquires a permit (waiting in the
 * name's FIFO queue when all are taken), releases it at once and queues again. Run beside
 * {@code contended} with the same clients, it shows what admitting several holders at once buys
 * over one exclusive lock. The latency is the whole cycle, wait included, as the client sees it.
 */
final class SemaphoreWorkload {

    /** As many permits as the figure the semaphore is judged by asks for. */
    static final int PERMITS = 8;

    private SemaphoreWorkload() {}

    static Figures run(LoadConfig config) throws InterruptedException {
        String name = "bench-semaphore-" + Clients.runId();
        AcquireOptions options = AcquireOptions.builder().permits(PERMITS).build();
        try (Clients clients = new Clients()) {
            List<ClosedLoop.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                Session session = clients.open(config, "semaphore-" + i).openSession();
                cycles.add(() -> {
                    long start = System.nanoTime();
                    // Held and given back at once: the cycle measures the grant and the hand-on.
                    Lease lease = session.acquire(name, options);
                    lease.release();
                    return System.nanoTime() - start;
                });
            }
            Figures f = ClosedLoop.run("semaphore", config, cycles).with("permits", PERMITS);
            return clients.withReplacements(f.with("latency", "acquire (waiting for a permit)+release"));
        }
    }
}
