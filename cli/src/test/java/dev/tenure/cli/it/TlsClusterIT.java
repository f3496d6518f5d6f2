package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.DeniedException;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
                        .isInstanceOf(DeniedException.class)
                        .hasMessageContaining("alice");
            }
            try (TenureClient plaintext = TenureClient.builder()
                    .endpoints(cluster.endpoints)
                    .requestTimeout(Duration.ofSeconds(2))
                    .build()) {
                assertThatThrownBy(plaintext::serverStatus)
                        .isInstanceOf(DeniedException.class)
                        .hasMessageContaining("serves TLS only on this port");
            }

            cluster.kill9(1);
            cluster.startOptions.clear();
            cluster.start();
            // cluster start returns once every node answers its health check, which a node does a
            // moment before it logs that it serves.
            List<String> starts = Await.atMost(Duration.ofSeconds(30))
                    .until(
                            "node 1 logs its second start",
                            () -> Files.readAllLines(cluster.data.resolve("node-1.log")).stream()
                                    .filter(l -> l.contains("serving on"))
                                    .toList(),
                            lines -> lines.size() >= 2);
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
                assertThatThrownBy(() -> session.acquire("elsewhere")).isInstanceOf(DeniedException.class);
            }
            assertThat(ProcessHandle.of(cluster.pids.get(1))
                            .orElseThrow()
                            .info()
                            .arguments()
                            .map(List::of)
                            .orElseThrow())
                    .as("the restarted node's arguments")
                    .contains("--cluster-secret-file", secret.toAbsolutePath().toString(), "--acl");
        }
    }
}
