package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every client on one lock: each waits in the lock's FIFO queue, is granted, releases at once and
 * queues again. An operation is one handoff; its latency is the time from the moment the holder
 * sends its release to the moment the next holder receives its grant. Both moments are read in
 * this JVM on one monotonic clock, so the figure needs no clock agreement between machines.
 */
final class ContendedWorkload {

    private ContendedWorkload() {}

    static Figures run(LoadConfig config) throws InterruptedException {
        String lock = "bench-contended-" + Clients.runId();
        // Written by the holder just before it sends its release, read by the next holder once
        // granted. Only the holder touches it, and there is one holder at a time; 0 means the
        // grant followed no release (the first grant of the run).
        AtomicLong releaseSentNanos = new AtomicLong();
        try (Clients clients = new Clients()) {
            List<ClosedLoop.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                Session session = clients.open(config, "contended-" + i).openSession();
                cycles.add(() -> {
                    Lease lease = session.acquire(lock);
                    long granted = System.nanoTime();
                    long sent = releaseSentNanos.getAndSet(0);
                    releaseSentNanos.set(System.nanoTime());
                    lease.release();
                    return sent == 0 ? ClosedLoop.NO_SAMPLE : granted - sent;
                });
            }
            return ClosedLoop.run("contended", config, cycles).with("latency", "handoff: release sent to next grant");
        }
    }
}
