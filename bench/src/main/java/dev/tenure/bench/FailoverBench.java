package dev.tenure.bench;

import com.google.gson.JsonObject;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Leader failover as a client sees it: acquire+release cycles on fresh locks run continuously;
 * the leader process is killed with SIGKILL; the figure is the time from the kill to the next
 * successful acquire. Reported as the longest gap between consecutive grants around the kill: an
 * acquire already committed before the kill may still complete just after it, so "first grant
 * after the kill" alone would flatter the figure. Also reported: how many acquires failed after
 * the kill and the first failure's message, so that a run with no grant after the kill tells a
 * client that kept failing from one that waited. Prints figures; asserts nothing.
 *
 * <p>Usage: {@code FailoverBench ENDPOINTS LEADER_PID}
 */
public final class FailoverBench {

    // The lease is held only for its grant and released at once: the try body has no use for it.
    @SuppressWarnings("try")
    public static void main(String[] args) throws Exception {
        String endpoints = args[0];
        long leaderPid = Long.parseLong(args[1]);
        java.util.List<Long> grants = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong failedAfterKill = new AtomicLong();
        AtomicReference<String> firstFailure = new AtomicReference<>("");
        try (TenureClient tenure = TenureClient.builder()
                        .endpoints(endpoints)
                        .sessionTtl(Duration.ofSeconds(10))
                        .build();
                Session session = tenure.openSession()) {
            Thread loop = new Thread(() -> {
                long n = 0;
                while (!stop.get()) {
                    try (Lease lease = session.acquire("failover-" + n++, Duration.ofSeconds(5))) {
                        grants.add(System.nanoTime());
                    } catch (TenureException e) {
                        // unavailable during the election: try again
                        if (System.nanoTime() > killedAt.get()) {
                            failedAfterKill.incrementAndGet();
                            firstFailure.compareAndSet("", String.valueOf(e.getMessage()));
                        }
                    }
                }
            });
            loop.start();
            Thread.sleep(3_000);
            ProcessHandle leader = ProcessHandle.of(leaderPid).orElseThrow();
            killedAt.set(System.nanoTime());
            leader.destroyForcibly();
            Thread.sleep(10_000);
            stop.set(true);
            loop.join(60_000);
            long before = grants.stream()
                    .filter(t -> t <= killedAt.get())
                    .max(Long::compare)
                    .orElseThrow();
            long gap = 0;
            long previous = before;
            for (long t : grants) {
                if (t > before) {
                    gap = Math.max(gap, t - previous);
                    previous = t;
                }
            }
            JsonObject out = new JsonObject();
            out.addProperty("workload", "failover");
            out.addProperty("longest_gap_between_grants_ms", Math.round(gap / 1e5) / 10.0);
            out.addProperty(
                    "grants_after_kill",
                    grants.stream().filter(t -> t > killedAt.get()).count());
            out.addProperty("failed_after_kill", failedAfterKill.get());
            out.addProperty("first_failure", firstFailure.get());
            System.out.println(out);
        }
    }
}
