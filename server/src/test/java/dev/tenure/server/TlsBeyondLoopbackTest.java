package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A node that clients beyond this machine can reach serves TLS, or its operator typed --insecure:
 * the start check, before anything is started or written.
 */
class TlsBeyondLoopbackTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(out, true, StandardCharsets.UTF_8);

    /** A member on {@code host}: 192.0.2.1 is a documentation address (TEST-NET-1), routable and never local. */
    private static ServerConfig on(String host) {
        return ServerConfig.member(0, List.of(new ServerConfig.Member(0, host, 7420, 7430)), Path.of("d"), 7421);
    }

    @Test
    void plaintextBeyondLoopbackIsRefusedNamingTheFix() {
        assertThatThrownBy(() -> TenureServer.requireTlsBeyondLoopback(on("192.0.2.1"), false, log))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refusing to serve without TLS on 192.0.2.1, where anyone who reaches it could take,"
                        + " release and write: give --tls-cert and --tls-key, or --insecure to accept an open node"
                        + " (docs/security.md)");
        assertThatThrownBy(() -> TenureServer.requireTlsBeyondLoopback(on("0.0.0.0"), false, log))
                .as("every address is beyond loopback")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void insecureIsAnOpenNodeTheOperatorChoseAndItSaysSo() {
        TenureServer.requireTlsBeyondLoopback(on("192.0.2.1").withInsecure(true), false, log);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .startsWith("tenure: warning: --insecure: serving without TLS on 192.0.2.1");
    }

    @Test
    void loopbackAndTlsNeedNothing() {
        TenureServer.requireTlsBeyondLoopback(on("127.0.0.1"), false, log);
        TenureServer.requireTlsBeyondLoopback(on("localhost"), false, log);
        TenureServer.requireTlsBeyondLoopback(on("192.0.2.1"), true, log);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
