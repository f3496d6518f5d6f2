package dev.tenure.cli.it;

import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.ServerStatus;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.client.spi.Probes;
import dev.tenure.testkit.Pause;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Test programs PartitionIT runs inside its network namespace (the test JVM cannot reach
 * addresses there). Times are {@link System#nanoTime()}, which on Linux is CLOCK_MONOTONIC: the
 * same clock in every process on the machine, so the test can compare them with its own.
 *
 * <ul>
 *   <li>{@code probe INTERVAL_MS ENDPOINT...}: asks each endpoint alone for its status every
 *       INTERVAL_MS (one thread each) and prints {@code status INDEX NANOS LEADER HEALTH} per
 *       answer, {@code LEADER} -1 and {@code HEALTH} "unavailable" when it does not answer.
 *   <li>{@code hold ENDPOINT LOCK TTL_MS DRIFT_MS TIMEOUT_MS}: acquires LOCK through ENDPOINT alone and
 *       prints {@code granted TOKEN LIFETIME_NANOS}, then {@code horizon NANOS} each time the
 *       lease's horizon moves (a renewal was acknowledged: the horizon is its send time plus
 *       the lifetime, granted TTL − DRIFT), then {@code lost REASON NANOS}, and exits 4.
 *   <li>{@code grants INTERVAL_MS ENDPOINTS}: one session through ENDPOINTS (comma-separated);
 *       every INTERVAL_MS it starts an acquire of a new lock without waiting for earlier ones to
 *       answer, and prints {@code grant TOKEN STARTED_NANOS ACKNOWLEDGED_NANOS} per grant, then
 *       releases it. Calls start on schedule whatever happens to earlier ones, so the first grant
 *       of a call started after a leader died shows when the new leader began granting.
 * </ul>
 */
public final class PartitionWorker {

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "probe" -> probe(args);
            case "hold" -> hold(args);
            case "grants" -> grants(args);
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void probe(String[] args) throws InterruptedException {
        long intervalMs = Long.parseLong(args[1]);
        for (int i = 2; i < args.length; i++) {
            int index = i - 2;
            String endpoint = args[i];
            Thread t = new Thread(
                    () -> {
                        try (TenureClient client = TenureClient.builder()
                                .endpoints(endpoint)
                                .requestTimeout(Duration.ofSeconds(2))
                                .build()) {
                            while (true) {
                                String view;
                                try {
                                    ServerStatus s = client.serverStatus();
                                    view = s.leaderId() + " " + s.health();
                                } catch (TenureException e) {
                                    view = "-1 unavailable";
                                }
                                print("status " + index + " " + System.nanoTime() + " " + view);
                                Pause.forMillis(intervalMs);
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "probe-" + index);
            t.start();
        }
        Thread.currentThread().join(); // until killed
    }

    private static void hold(String[] args) throws Exception {
        String endpoint = args[1];
        String lock = args[2];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[3]));
        Duration drift = Duration.ofMillis(Long.parseLong(args[4]));
        TenureClient client = TenureClient.builder()
                .endpoints(endpoint)
                .sessionTtl(ttl)
                .driftMargin(drift)
                .requestTimeout(Duration.ofMillis(Long.parseLong(args[5])))
                .build();
        Session session = client.openSession();
        Lease lease = session.acquire(lock);
        CompletableFuture<String> lost =
                lease.lost().thenApply((LossReason reason) -> "lost " + reason + " " + System.nanoTime());
        // The lifetime comes from the TTL the server granted, as the client computes it.
        print("granted " + lease.token() + " " + session.ttl().minus(drift).toNanos());
        long shown = 0;
        while (!lost.isDone()) {
            long horizon = Probes.horizonNanos(lease);
            if (horizon != shown) {
                print("horizon " + horizon);
                shown = horizon;
            }
            Pause.forMillis(5); // how often the horizon is looked at
        }
        long horizon = Probes.horizonNanos(lease);
        if (horizon != shown) {
            print("horizon " + horizon);
        }
        print(lost.join());
        // Like `tenure acquire`: a lost lease exits 4. Halt: closing would wait on the partitioned node.
        Runtime.getRuntime().halt(4);
    }

    private static void grants(String[] args) throws InterruptedException {
        long intervalMs = Long.parseLong(args[1]);
        TenureClient client = TenureClient.builder()
                .endpoints(args[2])
                .requestTimeout(Duration.ofSeconds(30))
                .build();
        Session session = client.openSession();
        java.util.concurrent.ExecutorService releases = java.util.concurrent.Executors.newSingleThreadExecutor();
        for (long n = 0; ; n++) {
            long started = System.nanoTime();
            var unused = session.acquireAsync("failover-" + n, Duration.ZERO).whenComplete((lease, failure) -> {
                if (lease != null) {
                    print("grant " + lease.token() + " " + started + " " + System.nanoTime());
                    releases.execute(lease::close);
                }
            });
            Pause.forMillis(intervalMs);
        }
    }
}
