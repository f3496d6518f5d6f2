package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.security.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What `cluster start` gives its nodes. Options given replace the stored ones, so the options a
 * cluster keeps (TLS, the secret file, the ACL) must come along whenever any option is given: a node
 * restarted without its secret could not reach its peers' log, and one without TLS would serve
 * in plaintext, and one without its ACL would allow everything.
 */
class ClusterStartOptionsTest {

    private static final TlsFiles TLS =
            new TlsFiles(Path.of("/etc/tenure/node.pem"), Path.of("/etc/tenure/node.key"), null);
    private static final Path SECRET = Path.of("/etc/tenure/cluster.secret");

    private final ClusterCommand.Start start = new ClusterCommand.Start();

    @Test
    void withNothingGivenTheStoredOptionsStand() {
        assertThat(start.serverOptions(TLS, SECRET, null)).isEmpty();
    }

    @Test
    void anotherOptionBringsTheKeptOnesAlong() {
        start.snapshotInterval = Duration.ofSeconds(1);
        assertThat(start.serverOptions(TLS, SECRET, null))
                .containsExactly(
                        "--snapshot-interval", "1000ms",
                        "--tls-cert", "/etc/tenure/node.pem",
                        "--tls-key", "/etc/tenure/node.key",
                        "--cluster-secret-file", "/etc/tenure/cluster.secret");
    }

    @Test
    void aSecretGivenToATlsClusterKeepsItsTls() {
        start.clusterSecretFile = Path.of("cluster.secret");
        assertThat(start.serverOptions(TLS, SECRET, null))
                .containsExactly(
                        "--tls-cert", "/etc/tenure/node.pem",
                        "--tls-key", "/etc/tenure/node.key",
                        "--cluster-secret-file", "/etc/tenure/cluster.secret");
    }

    @Test
    void tlsGivenToASecretClusterKeepsItsSecret() {
        start.tlsCert = Path.of("node.pem");
        assertThat(start.serverOptions(TLS, SECRET, null))
                .endsWith("--cluster-secret-file", "/etc/tenure/cluster.secret");
    }

    @Test
    void theReadLeaseIsPassedToEveryNode() {
        start.readLease = Duration.ofSeconds(1);
        assertThat(start.serverOptions(null, null, null)).containsExactly("--read-lease", "1000ms");
    }

    @Test
    void connectionsMaxIsPassedToEveryNode() {
        start.connectionsMax = 1000;
        assertThat(start.serverOptions(null, null, null)).containsExactly("--connections-max", "1000");
    }

    @Test
    void connectionsPerAddressMaxIsPassedToEveryNode() {
        start.connectionsPerAddressMax = 64;
        assertThat(start.serverOptions(null, null, null)).containsExactly("--connections-per-address-max", "64");
    }

    @Test
    void theOpenNodeOptInsArePassedToEveryNodeOnlyWhenGiven() {
        start.insecure = true;
        start.unsafeAllowForcedRelease = true;
        assertThat(start.serverOptions(null, null, null))
                .containsExactly("--insecure", "--unsafe-allow-forced-release");
        assertThat(new ClusterCommand.Start().serverOptions(null, null, null)).isEmpty();
    }

    @Test
    void aClusterWithoutEitherGetsNeither() {
        start.snapshotInterval = Duration.ofSeconds(1);
        assertThat(start.serverOptions(null, null, null)).containsExactly("--snapshot-interval", "1000ms");
    }

    @Test
    void anAclGivenKeepsTlsAndTheSecretAndAnotherOptionKeepsTheAcl() {
        Path acl = Path.of("/etc/tenure/acl.yaml");
        start.acl = Path.of("acl.yaml");
        assertThat(start.serverOptions(TLS, SECRET, acl))
                .containsExactly(
                        "--tls-cert", "/etc/tenure/node.pem",
                        "--tls-key", "/etc/tenure/node.key",
                        "--cluster-secret-file", "/etc/tenure/cluster.secret",
                        "--acl", "/etc/tenure/acl.yaml");
        start.acl = null;
        start.snapshotInterval = Duration.ofSeconds(1);
        assertThat(start.serverOptions(TLS, SECRET, acl)).endsWith("--acl", "/etc/tenure/acl.yaml");
    }
}
