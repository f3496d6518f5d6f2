package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.process.Dirs;
import dev.tenure.server.security.ClusterSecret;
import dev.tenure.server.security.SecretChallengeCredentials;
import dev.tenure.testkit.Await;
import io.aeron.archive.client.AeronArchive;
import io.aeron.archive.client.ArchiveException;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `--cluster-secret-file` as a user gives it: a file that cannot be a secret stops the start at
 * once, and a three-node cluster behind a secret serves, lets no stray client into its archives,
 * catches a restarted member up and copies a wiped one from its peers (whose consensus modules
 * and archives challenge those copies too), and refuses a member given another secret.
 */
class ClusterSecretIT {

    @TempDir
    Path tmp;

    @Test
    void aFileThatCannotBeASecretStopsTheStartWithOneLineNamingItAndExit2() throws Exception {
        Path missing = tmp.resolve("missing.secret");
        Path empty = secretFile("empty.secret", "");
        Path tooShort = secretFile("short.secret", "fifteen bytes..\n");
        assertRefused(
                List.of(
                        "server",
                        "--data",
                        tmp.resolve("never").toString(),
                        "--cluster-secret-file",
                        missing.toString()),
                "tenure: cluster secret file " + missing + " does not exist");
        assertRefused(
                List.of("server", "--data", tmp.resolve("never").toString(), "--cluster-secret-file", empty.toString()),
                "tenure: cluster secret file " + empty + " is empty: write at least 16 random bytes to it,"
                        + " e.g. head -c 32 /dev/urandom > " + empty);
        assertRefused(
                List.of(
                        "cluster",
                        "start",
                        "--data",
                        tmp.resolve("never").toString(),
                        "--cluster-secret-file",
                        tooShort.toString()),
                "tenure: cluster secret file " + tooShort + " holds 15 bytes, fewer than the 16 a secret needs:"
                        + " e.g. head -c 32 /dev/urandom > " + tooShort);
        assertThat(tmp.resolve("never")).as("nothing was started").doesNotExist();
    }

    /**
     * A snapshot a second, so the wiped member has one to copy: its empty data directory makes
     * `cluster start` restart it with --join, and its copy is a backup query that the peers'
     * consensus modules admit only with the secret. It is restarted without the option: the
     * cluster keeps the secret it was started with.
     */
    @Test
    void aClusterBehindASecretServesAndAWipedMemberCopiesFromItsPeers() throws Exception {
        Path secret = secretFile("cluster.secret", "a cluster secret of 32 bytes....");
        ClusterProcess cluster = new ClusterProcess(tmp.resolve("cluster"));
        cluster.startOptions.addAll(List.of("--cluster-secret-file", secret.toString(), "--snapshot-interval", "1s"));
        try (cluster) {
            cluster.start();
            assertGrantedAndReleased(new TenureCli(cluster.endpoints), "behind-the-secret");

            // A member's archive answers only those that prove the secret: a stray client, or one
            // with another secret, cannot read the log or delete recordings there.
            int archivePort = port(cluster.nodeEndpoints.get(0)) + 11;
            assertThatThrownBy(() -> archiveClientOf(archivePort, null))
                    .isInstanceOf(ArchiveException.class)
                    .hasMessageContaining("authentication rejected");
            assertThatThrownBy(() -> archiveClientOf(archivePort, "another secret, also 32 bytes..."))
                    .isInstanceOf(ArchiveException.class)
                    .hasMessageContaining("authentication rejected");
            assertThat(archiveClientOf(archivePort, "a cluster secret of 32 bytes...."))
                    .as("the archive id of the client that proved the secret")
                    .isEqualTo(0);

            int leader0 = cluster.leaderSeenBy(0);
            int behind = (leader0 + 2) % 3;
            // A member that missed entries catches up when it is back: the leader's archive replays
            // them to it, asked by the leader's own archive client, which proves the secret.
            cluster.kill9(behind);
            long missed;
            try (TenureClient tenure = TenureClient.builder()
                            .endpoints(cluster.nodeEndpoints.get(leader0))
                            .sessionTtl(Duration.ofSeconds(10))
                            .build();
                    Session session = tenure.openSession();
                    Lease lease = session.acquire("while-one-was-down")) {
                missed = lease.token();
            }
            cluster.start();
            awaitStatus(
                    cluster,
                    behind,
                    s -> s.get("replica_last_token").getAsLong() >= missed,
                    "the restarted member caught up");

            int wiped = (cluster.leaderSeenBy(0) + 1) % 3;
            long last;
            try (TenureClient tenure = TenureClient.builder()
                            .endpoints(cluster.endpoints)
                            .sessionTtl(Duration.ofSeconds(10))
                            .build();
                    Session session = tenure.openSession();
                    Lease lease = session.acquire("before-the-wipe")) {
                last = lease.token();
            }
            for (int node = 0; node < 3; node++) {
                int n = node;
                awaitStatus(cluster, n, s -> s.get("snapshot_position").getAsLong() > 0, "a snapshot on node " + n);
            }
            cluster.kill9(wiped);
            Dirs.deleteTree(cluster.data.resolve("node-" + wiped));
            cluster.startOptions.clear();
            cluster.start();
            awaitStatus(
                    cluster,
                    wiped,
                    s -> s.get("replica_last_token").getAsLong() >= last,
                    "the wiped member caught up from its peers");
            assertThat(Files.readString(cluster.data.resolve("node-" + wiped + ".log")))
                    .contains("copied the cluster's latest snapshot");

            // A new leader serves the sessions the old one admitted, and admits new ones: the
            // copied member and the third share the secret, so their majority goes on.
            int leader = cluster.leaderSeenBy(wiped);
            cluster.kill9(leader);
            try (TenureClient tenure = TenureClient.builder()
                            .endpoints(cluster.endpoints)
                            .sessionTtl(Duration.ofSeconds(10))
                            .build();
                    Session session = tenure.openSession();
                    Lease lease = session.acquire("after-the-leader", Duration.ofSeconds(20))) {
                assertThat(lease.token()).isGreaterThan(last);
            }
        }
    }

    @Test
    void aMemberGivenAnotherSecretIsRefusedByTheLeaderAndSaysSo() throws Exception {
        Path secret = secretFile("cluster.secret", "a cluster secret of 32 bytes....");
        Path other = secretFile("other.secret", "another secret, also 32 bytes...");
        ClusterProcess cluster = new ClusterProcess(tmp.resolve("cluster"));
        cluster.startOptions.addAll(List.of("--cluster-secret-file", secret.toString()));
        try (cluster) {
            cluster.start();
            int odd = (cluster.leaderSeenBy(0) + 1) % 3;
            cluster.kill9(odd);
            var restart = TenureCli.start(List.of(
                    "cluster",
                    "start",
                    "--data",
                    cluster.data.toString(),
                    "--cluster-secret-file",
                    other.toString(),
                    "--timeout",
                    "15s"));
            assertThat(restart.waitFor(Duration.ofSeconds(60)))
                    .as("the odd member never serves: " + restart.output())
                    .isEqualTo(5);
            JsonObject status = cluster.statusOf(odd);
            assertThat(status.get("health").getAsString()).isEqualTo("no quorum");
            assertThat(status.get("health_detail").getAsString())
                    .isEqualTo("the cluster leader refused this node's cluster secret: every member needs the same"
                            + " --cluster-secret-file contents");
            // The members that share the secret go on serving.
            int peer = (odd + 1) % 3;
            assertGrantedAndReleased(new TenureCli(cluster.nodeEndpoints.get(peer)), "still-served");
        }
    }

    /**
     * Connects to a member's archive control port as a process of the same host would, answering
     * its challenge under {@code secret} (or not at all), and returns the archive's id.
     */
    // The media driver only has to run while the archive client connects through it.
    @SuppressWarnings("try")
    private long archiveClientOf(int archivePort, String secret) {
        MediaDriver.Context driverCtx = new MediaDriver.Context()
                .aeronDirectoryName(tmp.resolve("stray-aeron").toString())
                .threadingMode(ThreadingMode.SHARED)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true);
        AeronArchive.Context client = new AeronArchive.Context()
                .aeronDirectoryName(driverCtx.aeronDirectoryName())
                .controlRequestChannel("aeron:udp?endpoint=127.0.0.1:" + archivePort)
                .controlResponseChannel("aeron:udp?endpoint=127.0.0.1:0")
                .messageTimeoutNs(TimeUnit.SECONDS.toNanos(10));
        if (secret != null) {
            client.credentialsSupplier(new SecretChallengeCredentials(new ClusterSecret(secret.getBytes(UTF_8))));
        }
        try (MediaDriver driver = MediaDriver.launch(driverCtx);
                AeronArchive archive = AeronArchive.connect(client)) {
            return archive.archiveId();
        }
    }

    /** `tenure acquire LOCK --no-wait` is granted a token, and releases it and exits 0 on SIGINT. */
    private static void assertGrantedAndReleased(TenureCli cli, String lock) throws Exception {
        var acquire = cli.run("acquire", lock, "--no-wait", "--json");
        assertThat(TenureCli.json(acquire.nextLine(Duration.ofSeconds(60)))
                        .get("token")
                        .getAsLong())
                .isPositive();
        acquire.signal("INT");
        assertThat(acquire.waitFor(Duration.ofSeconds(30))).as(acquire.output()).isZero();
    }

    private static int port(String endpoint) {
        return Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    }

    private static void assertRefused(List<String> args, String line) throws Exception {
        var start = TenureCli.start(args);
        assertThat(start.waitFor(Duration.ofSeconds(60))).as(start.output()).isEqualTo(2);
        assertThat(start.all).as("one line, naming the file").containsExactly("err: " + line);
    }

    private static JsonObject awaitStatus(ClusterProcess cluster, int node, Predicate<JsonObject> done, String what)
            throws Exception {
        return Await.atMost(Duration.ofSeconds(90))
                .every(Duration.ofMillis(500))
                .until(what, () -> cluster.statusOf(node), s -> s.has("replica_last_token") && done.test(s));
    }

    /** Readable by its owner only, as docs/cluster.md says to make it. */
    private Path secretFile(String name, String content) throws IOException {
        Path file = Files.writeString(tmp.resolve(name), content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }
}
