package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tenure cluster start --tls-cert --tls-key --tls-ca --cluster-secret-file --acl`: three real
 * nodes serve TLS with client certificates, submit to their log behind the cluster secret and
 * check every call against the ACL; the command checks their health over TLS (as the node
 * certificate's CN, which the ACL gives `monitor`), and a node restarted by a later `cluster
 * start` without the options comes back with all three, not in plaintext and not open.
 */
class TlsClusterIT {

    @TempDir
    Path dir;

    @Test
    void aClusterStartedWithTlsASecretAndAnAclServesOnlyPermittedTlsClientsAndKeepsAllThreeAcrossARestart()
            throws Exception {
        TestCertificates pki = new TestCertificates(dir.resolve("pki"));
        Authority ca = pki.authority("tenure-test-ca");
        Credential node = ca.server("node", "127.0.0.1");
        Credential alice = ca.client("alice");
        Path secret = Files.writeString(dir.resolve("cluster.secret"), "a cluster secret of 32 bytes....");
        Path acl = Files.writeString(dir.resolve("acl.yaml"), """
                principals:
                  node:
                    - prefix: ""
                      allow: [monitor]
                  alice:
                    - prefix: "tls-cluster"
                      allow: [acquire, read, write]
                """);
        try (ClusterProcess cluster = new ClusterProcess(dir.resolve("cluster"))) {
            cluster.startOptions.addAll(List.of(
                    "--cluster-secret-file",
                    secret.toString(),
                    "--acl",
                    acl.toString(),
                    "--tls-cert",
                    node.certificate().toString(),
                    "--tls-key",
                    node.key().toString(),
                    "--tls-ca",
                    ca.certificate().toString()));
            cluster.start();
            try (TenureClient tenure = TenureClient.builder()
                            .endpoints(cluster.endpoints)
                            .tls(ca.certificate(), alice.certificate(), alice.key())
                            .build();
                    Session session = tenure.openSession();
                    Lease lease = session.acquire("tls-cluster")) {
                tenure.kv().put("tls-cluster/k", "v".getBytes(UTF_8), "tls-cluster", lease.token());
                assertThat(tenure.status("tls-cluster").holder().orElseThrow().token())
                        .isEqualTo(lease.token());
                assertThatThrownBy(() -> session.acquire("elsewhere"))
                        .is(denied())
                        .hasMessageContaining("alice");
            }
            try (TenureClient plaintext = TenureClient.builder()
                    .endpoints(cluster.endpoints)
                    .requestTimeout(Duration.ofSeconds(2))
                    .build()) {
                assertThatThrownBy(plaintext::serverStatus)
                        .is(denied())
                        .hasMessageContaining("serves TLS only on this port");
            }

            cluster.kill9(1);
            cluster.startOptions.clear();
            cluster.start();
            // `cluster start` returns once every node serves; a member prints its start line after
            // it read its status through the log, which may come a moment later.
            List<String> starts = Await.atMost(Processes.scaled(Duration.ofSeconds(30)))
                    .until("node 1's second start line", () -> startLines(cluster, 1), l -> l.size() >= 2);
            assertThat(starts)
                    .as("node 1's start lines")
                    .hasSize(2)
                    .allSatisfy(l -> assertThat(l).contains("TLS, client certificates required"));
            // The restarted node, alone as its client's endpoint, still checks the ACL; it serves,
            // so its gateway proved the cluster secret to the leader.
            try (TenureClient tenure = TenureClient.builder()
                            .endpoints(cluster.nodeEndpoints.get(1))
                            .tls(ca.certificate(), alice.certificate(), alice.key())
                            .build();
                    Session session = tenure.openSession()) {
                assertThat(session.acquire("tls-cluster").token()).isPositive();
                assertThatThrownBy(() -> session.acquire("elsewhere")).is(denied());
            }
            // It runs from the configuration file cluster start rewrote for it (ClusterProcess
            // checks its command line), which still names the secret and the ACL.
            Object file = new org.snakeyaml.engine.v2.api.Load(
                            org.snakeyaml.engine.v2.api.LoadSettings.builder().build())
                    .loadFromString(Files.readString(
                            cluster.data.toAbsolutePath().normalize().resolve("node-1.yaml")));
            assertThat(file)
                    .as("the restarted node's configuration file")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.map(String.class, Object.class))
                    .containsEntry(
                            "cluster-secret-file", secret.toAbsolutePath().toString())
                    .containsKey("acl");
        }
    }

    /** The start lines node {@code node} printed to its log so far. */
    private static List<String> startLines(ClusterProcess cluster, int node) throws IOException {
        return Files.readAllLines(cluster.data.resolve("node-" + node + ".log")).stream()
                .filter(l -> l.contains("serving on"))
                .toList();
    }

    /** A node refused the client: {@link TenureException.Code#DENIED}. */
    private static Condition<Throwable> denied() {
        return new Condition<>(
                t -> t instanceof TenureException e && e.code() == TenureException.Code.DENIED, "DENIED");
    }
}
