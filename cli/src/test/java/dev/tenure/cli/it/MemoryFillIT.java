package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.ServerStatus;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.process.JavaCommand;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real node filled to its limits through the public API: three clients, each its own principal
 * (a client certificate), write the largest values the limits allow until they are refused. The
 * refusals name the limit that was reached (each principal's KV bytes quota, then the node's KV
 * bytes), the node never runs out of memory, stays healthy and grants a lock; after a kill -9 it
 * restarts from the snapshot it took full and from its log, and is healthy, still full and still
 * refusing. The node's heap is small (256 MiB) and its limits sized to fit it, so the test is
 * quick; the budget sizes the default limits for bin/tenure's 512 MiB the same way.
 */
class MemoryFillIT {
    private static final int VALUE_BYTES = 64 * 1024;
    /** What each write counts against the KV budgets: its 17-byte key ("fill/fill-a/00000") and its value. */
    private static final int ENTRY_BYTES = 17 + VALUE_BYTES;

    private static final long KV_BYTES_MAX = 40L << 20;
    private static final long QUOTA_BYTES = 16L << 20;
    /** Writes each client tries after its first refusal: each must be refused the same way. */
    private static final int MORE_TRIES = 20;

    /** The node JVM bin/tenure gives a node (heap start and young generation), with a smaller -Xmx. */
    private static final List<String> JVM = JavaCommand.nodeJvm("-Xmx256m");

    @TempDir
    Path dir;

    private Authority ca;
    private final Map<String, Credential> principals = new TreeMap<>();
    private ServerProcess server;

    @Test
    void aNodeFilledToItsLimitsRefusesNamingThemStaysUpAndRestartsFull() throws Exception {
        TestCertificates pki = new TestCertificates(dir.resolve("pki"));
        ca = pki.authority("tenure-test-ca");
        Credential node = ca.server("node-0", "127.0.0.1");
        List<String> options = new ArrayList<>(List.of(TlsArgs.server(node, ca)));
        options.addAll(List.of(
                "--snapshot-interval", "2s",
                "--limit", "sessionsMax=500",
                "--limit", "locksMax=500",
                "--limit", "idleLocksMax=200",
                "--limit", "waitersMax=500",
                "--limit", "kvKeysMax=2000",
                "--limit", "kvBytesMax=" + KV_BYTES_MAX,
                "--limit", "kvBytesPerPrincipalMax=16MiB",
                "--limit", "checkpointTotalBytesMax=1MiB"));
        server = new ServerProcess(dir.resolve("data"))
                .jvm(JVM)
                .withAdmin()
                .withOptions(options.toArray(String[]::new))
                .start();
        try {
            // a and b fill together, then c: each of a and b reaches its own quota first, and c
            // the node's budget, of which a and b hold 32 MiB of 40.
            Map<String, Fill> fills = fillInParallel(List.of("fill-a", "fill-b"));
            fills.putAll(fillInParallel(List.of("fill-c")));
            fills.forEach((p, f) -> System.out.printf(
                    "MemoryFillIT: %s: %d puts of %d KiB accepted, %d refused: %s%n",
                    p, f.accepted, VALUE_BYTES / 1024, f.refusals.size(), f.refusals.get(0)));
            for (String p : List.of("fill-a", "fill-b")) {
                assertThat(fills.get(p).refusals)
                        .hasSize(1 + MORE_TRIES)
                        .allSatisfy(m -> assertThat(m)
                                .contains("kvBytesPerPrincipalMax (" + QUOTA_BYTES + ") reached by principal " + p));
            }
            assertThat(fills.get("fill-c").refusals)
                    .hasSize(1 + MORE_TRIES)
                    .allSatisfy(m -> assertThat(m).contains("kvBytesMax (" + KV_BYTES_MAX + ") reached"));
            long accepted = fills.values().stream().mapToLong(f -> f.accepted).sum();
            assertThat(accepted * ENTRY_BYTES).isBetween(KV_BYTES_MAX - ENTRY_BYTES, KV_BYTES_MAX);

            assertServes("filled");
            // Each status read also digests the whole state on every replica: read once a second.
            long filledAt = status().replicaLogPosition();
            Await.atMost(Duration.ofSeconds(60))
                    .every(Duration.ofSeconds(1))
                    .until("a snapshot of the full state", this::status, s -> s.snapshotPosition() >= filledAt);
            long firstPeak = peakRssKiB();
            assertThat(server.lines()).noneMatch(l -> l.contains("OutOfMemoryError") || l.contains("fatal"));

            server.kill9();
            server.start();
            assertServes("restarted");
            String metrics = admin("/metrics").body();
            assertThat(metric(metrics, "tenure_limit_used{name=\"kvBytesMax\"}"))
                    .isEqualTo(accepted * ENTRY_BYTES);
            assertThat(metric(metrics, "tenure_limit{name=\"kvBytesMax\"}")).isEqualTo(KV_BYTES_MAX);
            assertThat(metric(metrics, "tenure_heap_guard_refusing")).isZero();
            try (TenureClient a = client("fill-a")) {
                assertThat(a.kv().get("fill/fill-a/00000"))
                        .hasValueSatisfying(e -> assertThat(e.value()).hasSize(VALUE_BYTES));
                assertThat(refusal(() -> a.kv().put("fill/fill-a/after", new byte[VALUE_BYTES])))
                        .contains("kvBytesPerPrincipalMax (" + QUOTA_BYTES + ") reached by principal fill-a");
            }
            long restartPeak = peakRssKiB();
            System.out.printf(
                    "MemoryFillIT: %d puts accepted (%d MiB of values) of kvBytesMax %d MiB; %d refused; node -Xmx256m:"
                            + " peak RSS (VmHWM) %d MiB filled, %d MiB after its restart%n",
                    accepted,
                    (accepted * VALUE_BYTES) >> 20,
                    KV_BYTES_MAX >> 20,
                    fills.values().stream().mapToLong(f -> f.refusals.size()).sum(),
                    firstPeak / 1024,
                    restartPeak / 1024);
            assertThat(server.lines()).noneMatch(l -> l.contains("OutOfMemoryError") || l.contains("fatal"));
        } finally {
            server.close();
        }
    }

    /**
     * The second line of defence: a node started with limits its heap cannot hold (--no-heap-check)
     * is filled past them; its heap guard refuses KV writes with RESOURCE_EXHAUSTED before the
     * heap runs out, the node stays up and grants locks, and once keys are deleted it takes
     * writes again.
     */
    @Test
    void aNodeWhoseLimitsExceedItsHeapRefusesWritesBeforeItRunsOutAndTakesThemAgainOnceThereIsRoom() throws Exception {
        server = new ServerProcess(dir.resolve("data"))
                .jvm(JavaCommand.nodeJvm("-Xmx128m"))
                .withAdmin()
                .withOptions("--no-heap-check", "--limit", "kvBytesMax=8GiB", "--limit", "kvKeysMax=1000000")
                .start();
        try (TenureClient c =
                TenureClient.builder().endpoints(server.endpoint()).build()) {
            assertThat(server.lines()).anyMatch(l -> l.startsWith("err: tenure: warning: --no-heap-check: the limits"));
            int accepted = 0;
            String refused = null;
            while (refused == null && server.alive()) {
                try {
                    c.kv().put(String.format("heap/%06d", accepted), new byte[VALUE_BYTES]);
                    accepted++;
                } catch (TenureException e) {
                    refused = limitExceeded(e).getMessage();
                }
            }
            System.out.printf(
                    "MemoryFillIT: -Xmx128m, limits over the heap: %d puts of 64 KiB (%d MiB) accepted, then: %s;"
                            + " peak RSS (VmHWM) %d MiB%n",
                    accepted, (accepted * VALUE_BYTES) >> 20, refused, peakRssKiB() / 1024);
            assertThat(refused).startsWith("heap: the old generation held");
            assertThat(admin("/metrics").body()).contains("tenure_heap_guard_refusing 1.0");
            assertThat(admin("/health").statusCode()).isEqualTo(200);
            try (Session s = c.openSession();
                    Lease lease = s.acquire("while-full", Duration.ofSeconds(5))) {
                assertThat(lease.token()).isPositive();
            }
            for (int i = 0; i < accepted / 2; i++) {
                assertThat(c.kv().delete(String.format("heap/%06d", i))).isTrue();
            }
            // The guard collects the heap every 10 s while it refuses, and sees the room.
            Await.atMost(Duration.ofSeconds(60)).every(Duration.ofSeconds(1)).until("a write taken again", () -> {
                try {
                    c.kv().put("heap/again", new byte[VALUE_BYTES]);
                    return true;
                } catch (TenureException stillRefused) {
                    limitExceeded(stillRefused);
                    return false;
                }
            });
            assertThat(server.alive()).isTrue();
            assertThat(server.lines()).noneMatch(l -> l.contains("OutOfMemoryError") || l.contains("fatal"));
        } finally {
            server.close();
        }
    }

    /** What one client got: puts accepted, then the messages of the refusals. */
    private static final class Fill {
        long accepted;
        final List<String> refusals = new ArrayList<>();
    }

    /** Each principal writes the largest values until refused, then tries {@link #MORE_TRIES} more. */
    private Map<String, Fill> fillInParallel(List<String> names) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(names.size());
        try {
            Map<String, Future<Fill>> running = new TreeMap<>();
            for (String p : names) {
                running.put(p, pool.submit(() -> fill(p)));
            }
            Map<String, Fill> done = new TreeMap<>();
            for (var e : running.entrySet()) {
                done.put(e.getKey(), e.getValue().get());
            }
            return done;
        } finally {
            pool.shutdownNow();
        }
    }

    private Fill fill(String principal) {
        Fill f = new Fill();
        try (TenureClient c = client(principal)) {
            for (int i = 0; f.refusals.size() <= MORE_TRIES; i++) {
                try {
                    c.kv().put(String.format("fill/%s/%05d", principal, i), new byte[VALUE_BYTES]);
                    f.accepted++;
                } catch (TenureException refused) {
                    f.refusals.add(limitExceeded(refused).getMessage());
                }
            }
        }
        return f;
    }

    /** Healthy, and a client with a certificate still opens a session and is granted a lock. */
    private void assertServes(String when) throws Exception {
        assertThat(admin("/health").statusCode()).as(when).isEqualTo(200);
        try (TenureClient c = client("locker");
                Session s = c.openSession();
                Lease lease = s.acquire("after-fill/" + when, Duration.ofSeconds(5))) {
            assertThat(lease.token()).isPositive();
        }
        assertThat(server.alive()).isTrue();
    }

    /** A client presenting {@code principal}'s certificate (made on first use). */
    private TenureClient client(String principal) {
        Credential who = credential(principal);
        return TenureClient.builder()
                .endpoints(server.endpoint())
                .tls(ca.certificate(), who.certificate(), who.key())
                .build();
    }

    private synchronized Credential credential(String principal) {
        return principals.computeIfAbsent(principal, ca::client);
    }

    private ServerStatus status() {
        try (TenureClient c = client("monitor")) {
            return c.serverStatus();
        }
    }

    /** The value of the series {@code series} (name and labels as scraped). */
    private static long metric(String scrape, String series) {
        for (String line : scrape.split("\n", -1)) {
            if (line.startsWith(series + " ")) {
                return (long) Double.parseDouble(line.substring(series.length() + 1));
            }
        }
        throw new AssertionError("no series " + series + " in /metrics");
    }

    private static String refusal(Runnable write) {
        try {
            write.run();
        } catch (TenureException refused) {
            return limitExceeded(refused).getMessage();
        }
        throw new AssertionError("the write was not refused");
    }

    /** {@code e} if it is the refusal these tests wait for (LIMIT_EXCEEDED); else it is thrown on. */
    private static TenureException limitExceeded(TenureException e) {
        if (e.code() != TenureException.Code.LIMIT_EXCEEDED) {
            throw e;
        }
        return e;
    }

    /** The admin endpoint: over TLS with a certificate when the node has a CA, else plain HTTP. */
    private HttpResponse<String> admin(String path) throws IOException, InterruptedException {
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
        if (ca != null) {
            http.sslContext(ca.clientContext(credential("monitor")));
        }
        return http.build()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        (ca == null ? "http" : "https") + "://127.0.0.1:" + server.adminPort() + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    /** The node's peak resident set since it started, from the kernel (VmHWM), in KiB. */
    private long peakRssKiB() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + server.pid() + "/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new AssertionError("no VmHWM in /proc/" + server.pid() + "/status");
    }
}
