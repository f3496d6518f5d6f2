package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.LockStatus;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.util.ArrayList;
import java.util.List;

/**
 * Linearizable reads: one session holds a lock, and each client (its own connection) reads that
 * lock's status in a loop, checking that it shows the holder's token. The latency is one read, as
 * the client sees it. What it measures is the read path (the read index, or the log before it),
 * with the log otherwise quiet but for the holder's renewals.
 */
final class ReadsWorkload {

    private ReadsWorkload() {}

    static Figures run(LoadConfig config) throws InterruptedException {
        String lock = "bench-reads-" + Clients.runId();
        try (Clients clients = new Clients()) {
            Session holder = clients.open(config, "reads-holder").openSession();
            try (Lease lease = holder.acquire(lock)) {
                long token = lease.token();
                List<ClosedLoop.Cycle> cycles = new ArrayList<>();
                for (int i = 0; i < config.clients(); i++) {
                    TenureClient client = clients.open(config, "reads-" + i);
                    cycles.add(() -> {
                        long start = System.nanoTime();
                        LockStatus status = client.status(lock);
                        long latency = System.nanoTime() - start;
                        if (status.holder().isEmpty() || status.holder().get().token() != token) {
                            throw new BenchFailedException("a status read of " + lock + " showed " + status.holder()
                                    + " while the bench's session holds it with token " + token);
                        }
                        return latency;
                    });
                }
                Figures f = ClosedLoop.run("reads", config, cycles);
                return clients.withReplacements(f.with("latency", "status read"));
            }
        }
    }
}
