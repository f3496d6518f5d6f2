package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/cluster.md's whole-cluster recovery on three members: a backup of a live three-member
 * cluster, each member of a new cluster restored from it (the first prints the floor, the others
 * are given it), the new cluster started. Every member must start from the backup's state with
 * the raised token counter: after the new leader is killed, the next leader still has the
 * backup's KV and grants tokens above the floor and above the old cluster's.
 */
class ClusterRestoreIT {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @Test
    void everyRestoredMemberHasTheBackupsStateAndTheFloor() throws Exception {
        Path file = dir.resolve("cluster.tnbk");
        long oldToken;
        try (ClusterProcess old = new ClusterProcess(dir.resolve("old")).start();
                TenureClient client = client(old.endpoints);
                Session session = client.openSession()) {
            try (Lease lease = session.acquire("orders", WAIT)) {
                session.kv().put("k1", bytes("at-backup"), "orders", lease.token());
            }
            run(0, "backup", "--endpoint", old.nodeEndpoints.get(1), "--out", file.toString());
            try (Lease lease = session.acquire("orders", WAIT)) {
                oldToken = lease.token();
                session.kv().put("k1", bytes("after-backup"), "orders", oldToken);
            }
        }
        Path fresh = dir.resolve("new");
        JsonObject first = TenureCli.json(run(
                0, "restore", file.toString(), "--data", fresh.resolve("node-0").toString(), "--json"));
        String floor = Long.toString(first.get("tokenFloor").getAsLong());
        for (int i = 1; i < 3; i++) {
            run(
                    0,
                    "restore",
                    file.toString(),
                    "--data",
                    fresh.resolve("node-" + i).toString(),
                    "--token-floor",
                    floor);
        }
        try (ClusterProcess restored = new ClusterProcess(fresh).start();
                TenureClient client = client(restored.endpoints);
                Session session = client.openSession()) {
            assertThat(text(client, "k1")).isEqualTo("at-backup");
            long firstToken;
            try (Lease lease = session.acquire("orders", WAIT)) {
                firstToken = lease.token();
            }
            assertThat(firstToken).isGreaterThan(Long.parseLong(floor)).isGreaterThan(oldToken);
            int leader = restored.leaderSeenBy(0);
            assertThat(leader).isBetween(0, 2);
            restored.kill9(leader);
            // The next leader is another restored member: its state is the backup's too.
            try (TenureClient after = client(restored.endpoints);
                    Session s = after.openSession();
                    Lease lease = s.acquire("orders", WAIT)) {
                assertThat(lease.token()).isGreaterThan(firstToken);
                assertThat(text(after, "k1")).isEqualTo("at-backup");
                s.kv().put("k1", bytes("restored"), "orders", lease.token());
                assertThat(text(after, "k1")).isEqualTo("restored");
            }
        }
    }

    private static String text(TenureClient client, String key) {
        return new String(client.kv().get(key).orElseThrow().value(), StandardCharsets.UTF_8);
    }

    private static TenureClient client(String endpoints) {
        return TenureClient.builder()
                .endpoints(endpoints)
                .sessionTtl(Duration.ofSeconds(30))
                .requestTimeout(Processes.scaled(Duration.ofSeconds(20)))
                .build();
    }

    private static String run(int exit, String... args) throws Exception {
        return TenureCli.lastLine(exit, args);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
