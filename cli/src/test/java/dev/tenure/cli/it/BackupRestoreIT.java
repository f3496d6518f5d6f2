package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.jdbc.JdbcFence;
import dev.tenure.jdbc.TenureTokenVerifier;
import dev.tenure.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup of a live node, grants and fenced writes after it, and a node started on a data
 * directory restored from it: the KV is the backup's, and its tokens are above every token the old
 * node issued, before and after the backup, so the fenced KV and the JDBC fence take them.
 */
class BackupRestoreIT {
    private static final long EPOCH_1 = 1L << 48;
    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    @Test
    void restoredNodeHasTheBackupsKvAndTokensAboveEveryOldOne() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:backup-it;DB_CLOSE_DELAY=-1");
        try (Connection c = h2.getConnection()) {
            JdbcFence.builder().trustTokens().build().createTable(c);
        }
        Path file = dir.resolve("tenure.tnbk");
        long afterBackup;
        try (ServerProcess old = new ServerProcess(dir.resolve("old")).start();
                TenureClient client = old.patientClient();
                Session session = client.openSession()) {
            try (Lease lease = session.acquire("orders", WAIT)) {
                session.kv().put("k1", bytes("before"), "orders", lease.token());
            }
            session.kv().put("k2", bytes("plain"));
            JsonObject backup =
                    TenureCli.json(run(0, "backup", "--endpoint", old.endpoint(), "--out", file.toString(), "--json"));
            assertThat(backup.get("tokenFloor").getAsLong()).isEqualTo(EPOCH_1);
            assertThat(backup.get("lastToken").getAsLong()).isEqualTo(1);
            // After the backup: more grants, fenced writes to the KV and to the database.
            try (Lease lease = session.acquire("orders", WAIT)) {
                afterBackup = lease.token();
                session.kv().put("k1", bytes("after"), "orders", afterBackup);
                session.kv().put("k3", bytes("after"));
                JdbcFence.builder()
                        .verifier(new TenureTokenVerifier(client))
                        .build()
                        .write(h2, "orders-table", lease, Duration.ofMillis(500), c -> {});
            }
            assertThat(afterBackup).isEqualTo(2);
        }
        Path restored = dir.resolve("new");
        JsonObject restore =
                TenureCli.json(run(0, "restore", file.toString(), "--data", restored.toString(), "--json"));
        assertThat(restore.get("tokenFloor").getAsLong()).isEqualTo(EPOCH_1);
        try (ServerProcess node = new ServerProcess(restored).start();
                TenureClient client = node.patientClient();
                Session session = client.openSession()) {
            assertThat(new String(client.kv().get("k1").orElseThrow().value(), StandardCharsets.UTF_8))
                    .isEqualTo("before");
            assertThat(client.kv().get("k2")).isPresent();
            assertThat(client.kv().get("k3")).isEmpty();
            // The seed is in a snapshot at once, long before --snapshot-interval: a member joined
            // later copies that snapshot rather than a log without the seed.
            Await.atMost(Duration.ofSeconds(30))
                    .every(Duration.ofMillis(200))
                    .until("the restored leader's first snapshot", client::serverStatus, s -> s.snapshots() >= 1);
            try (Lease lease = session.acquire("orders", WAIT)) {
                assertThat(lease.token()).isEqualTo(EPOCH_1 + 1).isGreaterThan(afterBackup);
                session.kv().put("k1", bytes("restored"), "orders", lease.token());
                JdbcFence fence = JdbcFence.builder()
                        .verifier(new TenureTokenVerifier(client))
                        .build();
                fence.write(h2, "orders-table", lease, Duration.ofMillis(500), c -> {});
                // The old cluster's last token is still refused by the database.
                assertThatThrownBy(() -> fence.write(h2, "orders-table", "orders", afterBackup, c -> {}))
                        .isInstanceOf(StaleTokenException.class);
            }
        }
    }

    /**
     * A state larger than what one connection may have unsent (here 1 MiB) is streamed as the client
     * reads it: queued whole, the node would close the backup's connection as a client that does
     * not read (it did, at 100,000 locks and the default 16 MiB).
     */
    @Test
    void aStateLargerThanTheUnsentLimitIsBackedUpWhole() throws Exception {
        Path file = dir.resolve("large.tnbk");
        int keys = 48;
        byte[] value = new byte[48 * 1024];
        try (ServerProcess old = new ServerProcess(dir.resolve("large-old"))
                        .withOptions("--unsent-bytes-max", "1MiB")
                        .start();
                TenureClient client = old.patientClient();
                Session session = client.openSession()) {
            for (int i = 0; i < keys; i++) {
                value[0] = (byte) i;
                session.kv().put("big/" + i, value);
            }
            run(0, "backup", "--endpoint", old.endpoint(), "--out", file.toString());
        }
        assertThat(Files.size(file)).isGreaterThan((long) keys * value.length);
        Path restored = dir.resolve("large-new");
        run(0, "restore", file.toString(), "--data", restored.toString());
        try (ServerProcess node = new ServerProcess(restored).start();
                TenureClient client = node.patientClient()) {
            for (int i = 0; i < keys; i++) {
                value[0] = (byte) i;
                assertThat(client.kv().get("big/" + i).orElseThrow().value())
                        .as("big/" + i)
                        .isEqualTo(value);
            }
        }
    }

    @Test
    void badInputIsRefusedAndWritesNothing() throws Exception {
        Path file = dir.resolve("b.tnbk");
        try (ServerProcess old = new ServerProcess(dir.resolve("old")).start();
                TenureClient client = old.patientClient();
                Session session = client.openSession()) {
            session.acquire("x", WAIT).close();
            run(0, "backup", "--endpoint", old.endpoint(), "--out", file.toString());
            // Never over an existing file.
            run(2, "backup", "--endpoint", old.endpoint(), "--out", file.toString());
        }
        byte[] good = Files.readAllBytes(file);
        byte[] bad = good.clone();
        bad[bad.length / 2] ^= 1;
        Path corrupt = Files.write(dir.resolve("corrupt.tnbk"), bad);
        assertThat(run(
                        2,
                        "restore",
                        corrupt.toString(),
                        "--data",
                        dir.resolve("d1").toString()))
                .isEmpty();
        assertThat(dir.resolve("d1")).doesNotExist();
        Path full = Files.createDirectories(dir.resolve("full"));
        Files.writeString(full.resolve("something"), "x");
        run(2, "restore", file.toString(), "--data", full.toString());
        assertThat(full.resolve(dev.tenure.server.backup.BackupFile.SEED_FILE)).doesNotExist();
        Path notBackup = Files.writeString(dir.resolve("not.tnbk"), "hello, this is not a backup file at all....");
        run(2, "restore", notBackup.toString(), "--data", dir.resolve("d2").toString());
        // The floor: a file restored once is refused, since a second cluster would reissue tokens.
        run(0, "restore", file.toString(), "--data", dir.resolve("first").toString());
        run(2, "restore", file.toString(), "--data", dir.resolve("second").toString());
        assertThat(dir.resolve("second")).doesNotExist();
        run(2, "restore", file.toString(), "--data", dir.resolve("second").toString(), "--token-floor", "5");
        JsonObject told = TenureCli.json(run(
                0,
                "restore",
                file.toString(),
                "--data",
                dir.resolve("second").toString(),
                "--token-floor",
                Long.toString(2 * EPOCH_1),
                "--json"));
        assertThat(told.get("tokenFloor").getAsLong()).isEqualTo(2 * EPOCH_1);
    }

    /** Runs `tenure ARGS`, expects {@code exit}, and returns its last stdout line ("" if none). */
    private static String run(int exit, String... args) throws Exception {
        return TenureCli.lastLine(exit, args);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
