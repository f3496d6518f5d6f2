package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.process.JavaCommand;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * `tenure locks` against a real node holding many locks: one client (this JVM) holds them on a
 * few sessions, and the listing pages through all of them in name order, each exactly once.
 * {@code -Dtenure.it.locks=100000} runs it at that size (the node's lock limits raised to fit).
 */
class LocksListIT extends OnOneNode {
    private static final int LOCKS = Integer.getInteger("tenure.it.locks", 5_000);
    private static final int PER_SESSION = 1_000;
    private static final Duration EXIT = Duration.ofSeconds(Math.max(120, LOCKS / 200));

    private static TenureClient client;
    private static final List<Session> sessions = new ArrayList<>();
    /** Lock name to the token its holder got. */
    private static final Map<String, Long> tokens = new HashMap<>();

    @BeforeAll
    static void holdManyLocks() throws Exception {
        // Past the default locksMax the node needs a larger heap for its memory budget to admit them.
        List<String> jvm = LOCKS > 10_000
                ? List.of("-XX:+UseSerialGC", "-Xmx1g", "-XX:TieredStopAtLevel=1")
                : JavaCommand.SMALL_NODE_JVM;
        serve(new ServerProcess(data.resolve("node"))
                .jvm(jvm)
                .withOptions(
                        "--limit", "locksMax=" + Math.max(10_000, LOCKS),
                        "--limit", "leasesPerSessionMax=" + PER_SESSION,
                        // The heap check counts each lock's full history; the listing needs none.
                        "--limit", "historyPerLockMax=" + (LOCKS > 10_000 ? 1 : 16)));
        // A long session TTL: thousands of acquires in flight on a loaded machine must not delay a
        // renewal past the sessions' horizon, which would end them and free their locks mid-test.
        client = TenureClient.builder()
                .endpoints(server.endpoint())
                .requestTimeout(Processes.scaled(Duration.ofSeconds(20)))
                .sessionTtl(Duration.ofSeconds(120))
                .build();
        long start = System.nanoTime();
        // Acquires in flight at once: enough to keep the log busy, few enough not to time out.
        Semaphore window = new Semaphore(64);
        List<CompletableFuture<Lease>> all = new ArrayList<>();
        Session session = null;
        for (int i = 0; i < LOCKS; i++) {
            if (i % PER_SESSION == 0) {
                session = client.openSession();
                sessions.add(session);
            }
            window.acquire();
            CompletableFuture<Lease> lease = session.acquireAsync(name(i), Duration.ZERO);
            var unused = lease.whenComplete((l, e) -> window.release());
            all.add(lease);
        }
        for (CompletableFuture<Lease> lease : all) {
            Lease l = lease.join();
            tokens.put(l.lock(), l.token());
        }
        System.out.printf("LocksListIT: %d locks taken in %d ms%n", LOCKS, (System.nanoTime() - start) / 1_000_000);
    }

    @AfterAll
    static void letGo() {
        sessions.forEach(Session::close);
        if (client != null) {
            client.close();
        }
    }

    /** Names whose order differs from the order they were taken in: "job/00042" is taken 42nd from the end. */
    private static String name(int i) {
        return String.format("%s/%06d", i % 10 == 0 ? "tenth" : "job", LOCKS - 1 - i);
    }

    private static List<JsonObject> list(String... args) throws Exception {
        try (var listing = tenure(args)) {
            assertThat(listing.waitFor(EXIT)).as(listing.output()).isZero();
            List<JsonObject> out = new ArrayList<>();
            for (String line : listing.stdout) {
                out.add(json(line));
            }
            return out;
        }
    }

    @Test
    void everyLockIsListedOnceInNameOrderAcrossPagesWithItsHolder() throws Exception {
        long start = System.nanoTime();
        List<JsonObject> listed = list("locks", "--json", "--timeout", "60s");
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("LocksListIT: `tenure locks --json` listed %d locks in %d ms%n", listed.size(), tookMs);

        List<String> names =
                listed.stream().map(o -> o.get("lock").getAsString()).toList();
        // Equal to the held names sorted: each once, in name order, none missing. One linear
        // comparison: AssertJ's any-order containment compares every pair, minutes at 100,000.
        assertThat(names)
                .hasSize(LOCKS)
                .isEqualTo(tokens.keySet().stream().sorted().toList());
        for (JsonObject o : listed) {
            assertThat(o.get("token").getAsLong())
                    .as(o.toString())
                    .isEqualTo(tokens.get(o.get("lock").getAsString()));
            assertThat(o.get("waiters").getAsInt()).isZero();
            assertThat(o.get("held_ms").getAsLong()).isNotNegative();
            assertThat(o.has("session")).isTrue();
        }
    }

    @Test
    void aPrefixListsOnlyItsOwnLocksAndASmallPageSizeChangesNothingButThePaging() throws Exception {
        List<String> tenths = list("locks", "--prefix", "tenth/", "--page-size", "7", "--json").stream()
                .map(o -> o.get("lock").getAsString())
                .toList();
        List<String> expected = tokens.keySet().stream()
                .filter(n -> n.startsWith("tenth/"))
                .sorted()
                .toList();
        assertThat(tenths).hasSize(LOCKS / 10).isEqualTo(expected);
        assertThat(list("locks", "--prefix", "tenth", "--json")).hasSize(LOCKS / 10);
        assertThat(list("locks", "--prefix", "nothing/", "--json")).isEmpty();
    }

    @Test
    void theTableHasAHeaderAndOneLinePerLock() throws Exception {
        // The JSON listing's timeout: at 100,000 locks on a loaded machine one page may take over 5 s.
        try (var listing = tenure("locks", "--prefix", "tenth/", "--timeout", "60s")) {
            assertThat(listing.waitFor(EXIT)).as(listing.output()).isZero();
            List<String> lines = new ArrayList<>(listing.stdout);
            assertThat(lines.get(0)).startsWith("LOCK").contains("TOKEN", "SESSION", "PRINCIPAL", "HELD", "WAITERS");
            assertThat(lines).hasSize(LOCKS / 10 + 1);
            assertThat(lines.get(1)).startsWith("tenth/");
        }
    }

    @Test
    void aPageLargerThanTheNodeAllowsIsBadInputAndExitsTwo() throws Exception {
        for (String size : List.of("1001", "0")) {
            try (var listing = tenure("locks", "--page-size", size)) {
                assertThat(listing.waitFor(EXIT)).as(listing.output()).isEqualTo(2);
                assertThat(listing.output()).contains(size.equals("0") ? "--page-size" : "listPageMax");
            }
        }
    }
}
