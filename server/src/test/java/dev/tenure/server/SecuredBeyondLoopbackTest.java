package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.logging.LogCapture;
import dev.tenure.server.security.ClusterSecret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node that others beyond this machine can reach serves TLS and admits only cluster clients
 * with the cluster secret, or its operator typed --insecure: the start check, before anything is
 * started or written.
 */
class SecuredBeyondLoopbackTest {
    private static final ClusterSecret SECRET = new ClusterSecret("0123456789abcdef".getBytes(StandardCharsets.UTF_8));

    private final LogCapture log = LogCapture.of(TenureServer.class);

    @AfterEach
    void stopCapturing() {
        log.close();
    }

    /** A member on {@code host}: 192.0.2.1 is a documentation address (TEST-NET-1), routable and never local. */
    private static ServerConfig on(String host) {
        return ServerConfig.member(0, List.of(new ServerConfig.Member(0, host, 7420, 7430)), Path.of("d"), 7421);
    }

    @Test
    void plaintextBeyondLoopbackIsRefusedNamingTheFix() {
        assertThatThrownBy(() -> TenureServer.requireSecuredBeyondLoopback(
                        on("192.0.2.1").withClusterSecret(SECRET), false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refusing to serve without TLS on 192.0.2.1, where anyone who reaches it could take,"
                        + " release and write: give --tls-cert and --tls-key, or --insecure to accept an open node"
                        + " (docs/security.md)");
        assertThatThrownBy(() -> TenureServer.requireSecuredBeyondLoopback(on("0.0.0.0"), false))
                .as("every address is beyond loopback")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLogOpenToAnyProcessBeyondLoopbackIsRefusedNamingTheFix() {
        assertThatThrownBy(() -> TenureServer.requireSecuredBeyondLoopback(on("192.0.2.1"), true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refusing to serve on 192.0.2.1 without --cluster-secret-file, where any process that"
                        + " reaches this member's Aeron ports could write to the log: give every member the same"
                        + " --cluster-secret-file, or --insecure to accept an open node (docs/cluster.md, 'Cluster"
                        + " secret')");
    }

    @Test
    void insecureIsAnOpenNodeTheOperatorChoseAndItSaysSo() {
        TenureServer.requireSecuredBeyondLoopback(on("192.0.2.1").withInsecure(true), false);
        assertThat(log.lines())
                .hasSize(2)
                .satisfiesExactly(
                        tls -> assertThat(tls)
                                .startsWith("tenure: warning: --insecure: serving without TLS on 192.0.2.1"),
                        secret ->
                                assertThat(secret).startsWith("tenure: warning: --insecure: no --cluster-secret-file"));
    }

    @Test
    void loopbackNeedsNeitherAndTlsWithTheSecretIsClosed() {
        TenureServer.requireSecuredBeyondLoopback(on("127.0.0.1"), false);
        TenureServer.requireSecuredBeyondLoopback(on("localhost"), false);
        TenureServer.requireSecuredBeyondLoopback(on("192.0.2.1").withClusterSecret(SECRET), true);
        assertThat(log.lines()).isEmpty();
    }
}
