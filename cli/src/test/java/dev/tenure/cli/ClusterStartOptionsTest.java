package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.tls.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What `cluster start` gives its nodes. Options given replace the stored ones, so the options a
 * cluster keeps (TLS, the secret file) must come along whenever any option is given: a node
 * restarted without its secret could not reach its peers' log, and one without TLS would serve
 * in plaintext.
 */
class ClusterStartOptionsTest {

    private static final TlsFiles TLS =
            new TlsFiles(Path.of("/etc/tenure/node.pem"), Path.of("/etc/tenure/node.key"), null);
    private static final Path SECRET = Path.of("/etc/tenure/cluster.secret");

    private final ClusterCommand.Start start = new ClusterCommand.Start();

    @Test
    void withNothingGivenTheStoredOptionsStand() {
        assertThat(start.serverOptions(TLS, SECRET)).isEmpty();
    }

    @Test
    void anotherOptionBringsTheKeptOnesAlong() {
        start.snapshotInterval = Duration.ofSeconds(1);
        assertThat(start.serverOptions(TLS, SECRET))
                .containsExactly(
                        "--snapshot-interval", "1000ms",
                        "--tls-cert", "/etc/tenure/node.pem",
                        "--tls-key", "/etc/tenure/node.key",
                        "--cluster-secret-file", "/etc/tenure/cluster.secret");
    }

    @Test
    void aSecretGivenToATlsClusterKeepsItsTls() {
        start.clusterSecretFile = Path.of("cluster.secret");
        assertThat(start.serverOptions(TLS, SECRET))
                .containsExactly(
                        "--tls-cert", "/etc/tenure/node.pem",
                        "--tls-key", "/etc/tenure/node.key",
                        "--cluster-secret-file", "/etc/tenure/cluster.secret");
    }

    @Test
    void tlsGivenToASecretClusterKeepsItsSecret() {
        start.tlsCert = Path.of("node.pem");
        assertThat(start.serverOptions(TLS, SECRET)).endsWith("--cluster-secret-file", "/etc/tenure/cluster.secret");
    }

    @Test
    void connectionsMaxIsPassedToEveryNode() {
        start.connectionsMax = 1000;
        assertThat(start.serverOptions(null, null)).containsExactly("--connections-max", "1000");
    }

    @Test
    void aClusterWithoutEitherGetsNeither() {
        start.snapshotInterval = Duration.ofSeconds(1);
        assertThat(start.serverOptions(null, null)).containsExactly("--snapshot-interval", "1000ms");
    }
}
