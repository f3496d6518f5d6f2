package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.KvEntry;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reads on a real 3-node cluster: served by the leader's read index (not written into the log
 * each), through the log on a follower. A read on any node shows every write acknowledged before
 * it started, also while the leader is killed and another elected (whose reads then go through
 * its read index). Each test runs twice: with the default, and with a read lease of 1 s
 * ({@code --read-lease}), under which the leader answers reads without waiting for an entry.
 */
class ReadIndexIT {

    @TempDir
    Path data;

    /** A cluster started with {@code lease} ("off": the default) as its read lease. */
    private ClusterProcess cluster(String lease) throws Exception {
        ClusterProcess cluster = new ClusterProcess(data);
        if (!lease.equals("off")) {
            cluster.startOptions.addAll(List.of("--read-lease", lease));
        }
        return cluster.start();
    }

    private static TenureClient client(String endpoint) {
        return TenureClient.builder()
                .endpoints(endpoint)
                .sessionTtl(Duration.ofSeconds(5))
                .build();
    }

    private static byte[] bytes(long v) {
        return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long value(Optional<KvEntry> e) {
        return e.map(x -> ByteBuffer.wrap(x.value()).getLong()).orElse(0L);
    }

    /** Each write, once acknowledged, is what a read on every node shows next, followers first. */
    @ParameterizedTest(name = "read lease {0}")
    @ValueSource(strings = {"off", "1s"})
    void aReadOnAnyNodeShowsEveryWriteAcknowledgedBeforeIt(String readLease) throws Exception {
        try (ClusterProcess cluster = cluster(readLease);
                TenureClient writer = client(cluster.endpoints);
                Session session = writer.openSession()) {
            List<TenureClient> readers = new ArrayList<>();
            try {
                for (String endpoint : cluster.nodeEndpoints) {
                    readers.add(client(endpoint));
                }
                for (int i = 1; i <= 200; i++) {
                    writer.kv().put("read-index/k", bytes(i));
                    for (int n = 0; n < readers.size(); n++) {
                        assertThat(value(readers.get(n).kv().get("read-index/k")))
                                .as("node %d's read after write %d was acknowledged", n, i)
                                .isEqualTo(i);
                    }
                    try (Lease lease = session.acquire("read-index/lock")) {
                        for (int n = 0; n < readers.size(); n++) {
                            assertThat(readers.get(n)
                                            .status("read-index/lock")
                                            .holder()
                                            .map(h -> h.token()))
                                    .as("node %d's status after grant %d", n, i)
                                    .contains(lease.token());
                        }
                    }
                    for (int n = 0; n < readers.size(); n++) {
                        assertThat(readers.get(n).status("read-index/lock").holder())
                                .as("node %d's status after release %d", n, i)
                                .isEmpty();
                    }
                }
            } finally {
                for (TenureClient r : readers) {
                    r.close();
                }
            }
        }
    }

    /**
     * A writer counts up a key while a reader on each node reads it: no read shows less than the
     * last write acknowledged before the read started, before, during and after the leader's kill.
     * The killed leader's reader gets nothing after the kill; one of the others is then the new
     * leader's, served by its read index.
     */
    @ParameterizedTest(name = "read lease {0}")
    @ValueSource(strings = {"off", "1s"})
    void readsStayCurrentThroughALeaderKill(String lease) throws Exception {
        try (ClusterProcess cluster = cluster(lease);
                TenureClient writer = client(cluster.endpoints)) {
            int leader = cluster.leaderSeenBy(0);
            AtomicLong acknowledged = new AtomicLong();
            AtomicBoolean stop = new AtomicBoolean();
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            AtomicLong readsAfterKill = new AtomicLong();
            AtomicBoolean killed = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            List<TenureClient> readers = new ArrayList<>();
            threads.add(new Thread(() -> {
                long next = 1;
                while (!stop.get()) {
                    try {
                        writer.kv().put("read-index/counter", bytes(next));
                        acknowledged.set(next);
                        next++;
                    } catch (TenureException e) {
                        // UNAVAILABLE during the election; the same value is written again (a
                        // write that did land shows the value early, which no read may mind).
                    }
                }
            }));
            for (int n = 0; n < 3; n++) {
                int node = n;
                TenureClient reader = client(cluster.nodeEndpoints.get(n));
                readers.add(reader);
                threads.add(new Thread(() -> {
                    long last = 0;
                    while (!stop.get()) {
                        long floor = acknowledged.get();
                        try {
                            long seen = value(reader.kv().get("read-index/counter"));
                            if (seen < floor || seen < last) {
                                violations.add("node " + node + " read " + seen + " after " + floor
                                        + " was acknowledged and " + last + " read");
                            }
                            last = seen;
                            if (killed.get() && node != leader) {
                                readsAfterKill.incrementAndGet();
                            }
                        } catch (TenureException e) {
                            // UNAVAILABLE while no leader commits the node's read barrier, and
                            // from the killed node for good.
                            pause();
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            try {
                Await.atMost(Duration.ofSeconds(30)).until("writes before the kill", () -> acknowledged.get() > 100);
                cluster.kill9(leader);
                killed.set(true);
                long atKill = acknowledged.get();
                Await.atMost(Duration.ofSeconds(60))
                        .until(
                                "writes and reads after the leader's kill",
                                () -> acknowledged.get() > atKill + 100 && readsAfterKill.get() > 100);
            } finally {
                stop.set(true);
                for (Thread t : threads) {
                    t.join(30_000);
                }
                for (TenureClient r : readers) {
                    r.close();
                }
            }
            System.out.printf(
                    "ReadIndexIT: read lease %s: %d writes acknowledged, %d reads after the kill of leader %d%n",
                    lease, acknowledged.get(), readsAfterKill.get(), leader);
            assertThat(violations).isEmpty();
        }
    }

    /**
     * Under a read lease a lone client's reads on the leader wait for no entry of their own: the
     * leader's counters show them answered by the lease, with about one barrier per half lease
     * where the read index alone needs one per read.
     */
    @Test
    void aLoneReaderOnTheLeaderIsAnsweredByTheLease() throws Exception {
        try (ClusterProcess cluster = cluster("1s");
                TenureClient writer = client(cluster.endpoints)) {
            writer.kv().put("read-lease/k", bytes(7));
            int reads = 2_000;
            // Counted only while one node leads throughout: after a change of leader (an election on
            // a starved machine) the reads go to a follower, through the log, and are tried again.
            for (int attempt = 1; ; attempt++) {
                int leader = cluster.leaderSeenBy(0);
                String endpoint = cluster.nodeEndpoints.get(leader);
                Map<String, Double> before = readCounters(endpoint);
                try (TenureClient reader = client(endpoint)) {
                    for (int i = 0; i < reads; i++) {
                        assertThat(value(reader.kv().get("read-lease/k"))).isEqualTo(7);
                    }
                }
                Map<String, Double> after = readCounters(endpoint);
                if (cluster.leaderSeenBy(leader) != leader && attempt < 3) {
                    System.out.printf("ReadIndexIT: node %d stopped leading during the reads; again%n", leader);
                    continue;
                }
                double leased = after.get("tenure_reads_leased_total") - before.get("tenure_reads_leased_total");
                double barriers = after.get("tenure_read_barriers_total") - before.get("tenure_read_barriers_total");
                System.out.printf(
                        "ReadIndexIT: %d reads on leader %d under a read lease of 1 s: %.0f answered by the lease,"
                                + " %.0f read barriers%n",
                        reads, leader, leased, barriers);
                assertThat(leased).as("reads the lease answered").isGreaterThanOrEqualTo(reads * 0.9);
                assertThat(barriers).as("read barriers sent").isLessThan(reads / 10.0);
                return;
            }
        }
    }

    /** The read counters of the node serving {@code endpoint}, from its admin port (the gRPC port + 1). */
    private static Map<String, Double> readCounters(String endpoint) throws Exception {
        int colon = endpoint.lastIndexOf(':');
        URI metrics = URI.create("http://" + endpoint.substring(0, colon) + ":"
                + (Integer.parseInt(endpoint.substring(colon + 1)) + 1) + "/metrics");
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, Double> out = new TreeMap<>();
        for (String line : response.body().lines().toList()) {
            for (String name : List.of("tenure_reads_leased_total", "tenure_read_barriers_total")) {
                if (line.startsWith(name + " ")) {
                    out.put(name, Double.parseDouble(line.substring(name.length() + 1)));
                }
            }
        }
        assertThat(out).as(response.body()).hasSize(2);
        return out;
    }
}
