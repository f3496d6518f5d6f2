package dev.tenure.client;

import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.spi.ClientTls;
import dev.tenure.client.spi.Transport;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client over real TLS to a real Netty gRPC server: it connects with the right CA, and a
 * handshake refused for good fails at once with {@link TenureException.Code#DENIED} saying why, on unary
 * calls and on the session stream alike, instead of being retried until the request timeout.
 */
class ClientTlsTest {
    /** Long, so that a refusal that is retried instead of reported fails the timing assertion. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    static Path dir;

    static Authority ca;
    static Authority rogue;
    static Credential node;
    static Credential alice;

    private Server server;

    @BeforeAll
    static void certificates() {
        TestCertificates pki = new TestCertificates(dir);
        ca = pki.authority("tenure-test-ca");
        rogue = pki.authority("rogue-ca");
        node = ca.server("node", "127.0.0.1", "localhost");
        alice = ca.client("alice");
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientTrustingTheNodesCaIsServed() throws Exception {
        start(node, null);
        try (TenureClient client = client(ClientTls.trusting(ca.certificate()))) {
            assertThat(client.serverStatus().health()).isEqualTo("ok");
        }
    }

    @Test
    void aClientWithACertificateIsServedByANodeThatAsksForOne() throws Exception {
        start(node, ca.certificate());
        try (TenureClient client = client(ClientTls.of(ca.certificate(), alice.certificate(), alice.key()))) {
            assertThat(client.serverStatus().health()).isEqualTo("ok");
        }
    }

    @Test
    void aNodeCertificateForAnotherHostIsRefusedAsWrongHost() throws Exception {
        start(ca.server("elsewhere", "db.example.com"), null);
        assertDenied(ClientTls.trusting(ca.certificate()), "wrong host", "does not name 127.0.0.1");
    }

    @Test
    void aNodeCertificateFromAnotherCaIsRefusedAsUntrusted() throws Exception {
        start(rogue.server("impostor", "127.0.0.1"), null);
        assertDenied(ClientTls.trusting(ca.certificate()), "untrusted certificate", "the node's certificate");
    }

    @Test
    void anExpiredNodeCertificateIsRefusedAsExpired() throws Exception {
        start(ca.expired("stale-node", "127.0.0.1"), null);
        assertDenied(ClientTls.trusting(ca.certificate()), "expired", "the node's certificate");
    }

    @Test
    void withoutACertificateANodeThatAsksForOneRefusesTheClient() throws Exception {
        start(node, ca.certificate());
        assertDenied(ClientTls.trusting(ca.certificate()), "no client certificate");
    }

    @Test
    void aClientCertificateFromAnotherCaIsRefusedByTheNode() throws Exception {
        start(node, ca.certificate());
        Credential mallory = rogue.client("mallory");
        assertDenied(
                ClientTls.of(ca.certificate(), mallory.certificate(), mallory.key()),
                "untrusted certificate",
                "this client's certificate is not");
    }

    @Test
    void anExpiredClientCertificateIsRefusedByTheNode() throws Exception {
        start(node, ca.certificate());
        Credential old = ca.expired("old-alice");
        assertDenied(
                ClientTls.of(ca.certificate(), old.certificate(), old.key()),
                "expired",
                "refused this client's certificate");
    }

    @Test
    void aTlsClientToAPlaintextNodeIsToldSo() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(new Healthy())
                .build()
                .start();
        assertDenied(ClientTls.trusting(ca.certificate()), "does not speak TLS");
    }

    @Test
    void theSessionStreamIsRefusedAsUnaryCallsAre() throws Exception {
        start(node, ca.certificate());
        try (TenureClient client = client(ClientTls.trusting(ca.certificate()))) {
            long start = System.nanoTime();
            assertThatThrownBy(client::openSession)
                    .is(code(TenureException.Code.DENIED))
                    .hasMessageContaining("no client certificate");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(REQUEST_TIMEOUT.dividedBy(2));
        }
    }

    @Test
    void aMissingFileIsNamedWhenTheSettingsAreMade() {
        Path missing = dir.resolve("no-such.pem");
        assertThatThrownBy(() -> ClientTls.trusting(missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("TLS CA file " + missing + ": no such file");
        assertThatThrownBy(() -> ClientTls.of(ca.certificate(), alice.certificate(), missing))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("TLS key file " + missing + ": no such file");
        assertThatThrownBy(() -> ClientTls.of(ca.certificate(), alice.certificate(), null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("go together");
    }

    @Test
    void aFileThatIsNotAKeyIsNamed() {
        assertThatThrownBy(() -> ClientTls.of(ca.certificate(), alice.certificate(), alice.certificate()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(alice.certificate().toString());
    }

    private void assertDenied(ClientTls tls, String... reason) {
        try (TenureClient client = client(tls)) {
            long start = System.nanoTime();
            assertThatThrownBy(client::serverStatus)
                    .is(code(TenureException.Code.DENIED))
                    .hasMessageStartingWith("TLS handshake with 127.0.0.1:" + server.getPort() + " failed: ")
                    .hasMessageContainingAll(reason)
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("refused at once, not retried")
                    .isLessThan(REQUEST_TIMEOUT.dividedBy(2));
        }
    }

    private TenureClient client(ClientTls tls) {
        TenureClient.Builder b = TenureClient.builder()
                .endpoints("127.0.0.1:" + server.getPort())
                .requestTimeout(REQUEST_TIMEOUT);
        return Transport.tls(b, tls).build();
    }

    /** A TLS node that asks for client certificates signed by {@code clientCa}, if not null. */
    private void start(Credential credential, Path clientCa) throws Exception {
        SslContextBuilder tls = GrpcSslContexts.forServer(
                credential.certificate().toFile(), credential.key().toFile());
        if (clientCa != null) {
            tls.trustManager(clientCa.toFile()).clientAuth(ClientAuth.REQUIRE);
        }
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sslContext(tls.build())
                .addService(new Healthy())
                .build()
                .start();
    }

    /** Answers ServerStatus, healthy; every other call is UNIMPLEMENTED. */
    private static final class Healthy extends TenureGrpc.TenureImplBase {
        @Override
        public void serverStatus(ServerStatusRequest request, StreamObserver<ServerStatusResponse> out) {
            out.onNext(ServerStatusResponse.newBuilder().setHealth("ok").build());
            out.onCompleted();
        }
    }
}
