package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.LockStatus;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lone node whose disk another process filled ends with status 15, often leaving the entry it
 * was appending torn (the write stops at a page the file system could not give it); once the room
 * is back it restarts by itself, dropping only that never acknowledged tail and saying how many
 * bytes went, with every acknowledged write there. Before, the torn entry stopped every restart
 * with exit 12, and a lone node has no peer to copy its log from.
 */
class FullDiskRestartIT {
    /** Fill-and-restart rounds at most: a write cut exactly between two entries tears nothing. */
    private static final int ROUNDS_MAX = 4;

    /** Grants per round at most, so that each lock's history is still kept (idleLocksMax 2,000). */
    private static final int GRANTS_PER_ROUND_MAX = 1_000;

    @TempDir
    Path tmp;

    // The mount is held for the node to write on, and unmounted after: the body never names it.
    @SuppressWarnings("try")
    @Test
    void aLoneNodeThatFilledItsDiskRestartsWithEveryAcknowledgedWrite() throws Exception {
        Path mount = Files.createDirectories(tmp.resolve("mount"));
        try (TmpfsMount disk = TmpfsMount.on(mount, "size=256m")) {
            ServerProcess server = new ServerProcess(mount.resolve("data")).onASmallDisk();
            try (server) {
                server.start();
                Map<String, byte[]> puts = new TreeMap<>();
                try (TenureClient tenure = server.patientClient()) {
                    for (int i = 0; i < 50; i++) {
                        byte[] value = value(i, 3_000 + 97 * i);
                        tenure.kv().put("before-full-" + i, value);
                        puts.put("before-full-" + i, value);
                    }
                }
                List<String> torn = new ArrayList<>();
                for (int round = 0; round < ROUNDS_MAX && torn.isEmpty(); round++) {
                    Map<String, Long> grants = fillUntilTheNodeEnds(server, mount, round);
                    Files.delete(mount.resolve("other-process.bin"));
                    long restart = System.nanoTime();
                    server.start();
                    long restartMs = (System.nanoTime() - restart) / 1_000_000;
                    server.lines().stream()
                            .filter(l -> l.startsWith("err: tenure: torn log tail dropped: "))
                            .forEach(torn::add);
                    try (TenureClient tenure = server.patientClient()) {
                        assertEveryAcknowledgedWrite(tenure, puts, grants);
                    }
                    System.out.printf(
                            "FullDiskRestartIT: round %d: exit 15, the restart served in %d ms with every acknowledged"
                                    + " write (%d puts, %d grants); %s%n",
                            round, restartMs, puts.size(), grants.size(), torn.isEmpty() ? "no torn tail" : torn);
                }
                assertThat(torn)
                        .as("a round that left a torn tail (each has a fair chance; none in " + ROUNDS_MAX + ")")
                        .isNotEmpty();
            }
        }
    }

    /** Fills the disk from another process and takes locks until the node ends with 15; the grants acknowledged. */
    private static Map<String, Long> fillUntilTheNodeEnds(ServerProcess server, Path mount, int round)
            throws Exception {
        Map<String, Long> grants = new TreeMap<>();
        // Long names make long entries: a write cut at a page boundary then seldom falls between two.
        String prefix = "r" + round + "-" + "x".repeat(200) + "-";
        try (TenureClient tenure = server.patientClient()) {
            TmpfsMount.fillUp(mount.resolve("other-process.bin"));
            try (Session session = tenure.openSession()) {
                for (int i = 0; i < GRANTS_PER_ROUND_MAX && server.alive(); i++) {
                    try (Lease lease = session.acquire(prefix + i)) {
                        grants.put(prefix + i, lease.token());
                    }
                }
            } catch (TenureException expected) {
                // The node ended under the loop.
            }
        }
        int status = server.awaitExit(Duration.ofSeconds(60));
        assertThat(status).as(server.lines().toString()).isEqualTo(15);
        return grants;
    }

    private static void assertEveryAcknowledgedWrite(
            TenureClient tenure, Map<String, byte[]> puts, Map<String, Long> grants) {
        for (Map.Entry<String, byte[]> e : puts.entrySet()) {
            assertThat(tenure.kv().get(e.getKey()))
                    .as(e.getKey())
                    .hasValueSatisfying(found -> assertThat(found.value()).isEqualTo(e.getValue()));
        }
        for (Map.Entry<String, Long> e : grants.entrySet()) {
            LockStatus status = tenure.status(e.getKey());
            List<Long> tokens = new ArrayList<>();
            status.holder().ifPresent(h -> tokens.add(h.token()));
            status.history().forEach(t -> tokens.add(t.token()));
            assertThat(tokens).as(e.getKey()).contains(e.getValue());
        }
    }

    private static byte[] value(int i, int length) {
        byte[] value = new byte[length];
        Arrays.fill(value, (byte) ('a' + i % 26));
        return value;
    }
}
