package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.gateway.Principal;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gRPC port served the way a node serves its own ({@link ServerTls#grpc()} and
 * {@link ServerTls#principals()}), over real TLS, with a service that answers with the
 * principal its handler sees: who is let in, who is refused before any handler runs, and which
 * principal a call carries.
 */
class TlsPortTest {
    @TempDir
    static Path dir;

    static Authority ca;
    static Authority rogue;
    static Credential node;
    static Credential alice;

    private final AtomicInteger served = new AtomicInteger();
    private Server server;
    private ManagedChannel channel;

    @BeforeAll
    static void certificates() {
        TestCertificates pki = new TestCertificates(dir);
        ca = pki.authority("tenure-test-ca");
        rogue = pki.authority("rogue-ca");
        node = ca.server("node-0", "127.0.0.1");
        alice = ca.client("alice");
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow();
        }
        if (server != null) {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientWithACertificateFromTheCaIsServedAsItsCn() throws Exception {
        start(ca.certificate());
        assertThat(call(tls(alice))).isEqualTo("alice");
    }

    @Test
    void withoutAClientCaEveryTlsClientIsServedWithoutAPrincipal() throws Exception {
        start(null);
        assertThat(call(tls(null))).isEqualTo("(none)");
        assertThat(call(tls(alice)))
                .as("a certificate not asked for is not read")
                .isEqualTo("(none)");
    }

    @Test
    void aPlaintextClientIsRefused() throws Exception {
        start(null);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .build();
        assertRefused(Status.Code.UNAVAILABLE);
    }

    @Test
    void aClientWithoutACertificateIsRefused() throws Exception {
        start(ca.certificate());
        channel = tls(null);
        assertRefused(Status.Code.UNAVAILABLE);
    }

    @Test
    void aClientCertificateFromAnotherCaIsRefused() throws Exception {
        start(ca.certificate());
        channel = tls(rogue.client("mallory"));
        assertRefused(Status.Code.UNAVAILABLE);
    }

    @Test
    void anExpiredClientCertificateIsRefused() throws Exception {
        start(ca.certificate());
        channel = tls(ca.expired("old-alice"));
        assertRefused(Status.Code.UNAVAILABLE);
    }

    @Test
    void aClientCertificateWithoutACnIsRefusedBeforeAnyHandler() throws Exception {
        start(ca.certificate());
        channel = tls(ca.withSubject("no-cn", "O=Tenure,OU=ops"));
        assertRefused(Status.Code.UNAUTHENTICATED);
    }

    @Test
    void theMostSpecificCnOfASubjectIsThePrincipalUnescaped() {
        assertThat(PrincipalInterceptor.commonName(
                        new javax.security.auth.x500.X500Principal("CN=batch\\, nightly,OU=jobs,CN=ignored,O=Tenure")))
                .hasValue("batch, nightly");
        assertThat(PrincipalInterceptor.commonName(new javax.security.auth.x500.X500Principal("O=Tenure")))
                .isEmpty();
    }

    private void assertRefused(Status.Code code) {
        assertThatThrownBy(() -> call(channel))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
        assertThat(served).as("calls that reached the service").hasValue(0);
    }

    private String call(ManagedChannel channel) {
        this.channel = this.channel == null ? channel : this.channel;
        return TenureGrpc.newBlockingStub(channel)
                .withDeadlineAfter(20, TimeUnit.SECONDS)
                .serverStatus(ServerStatusRequest.getDefaultInstance())
                .getHealthDetail();
    }

    /** A TLS channel trusting the CA, presenting {@code credential} if not null. */
    private ManagedChannel tls(Credential credential) throws Exception {
        SslContextBuilder b =
                GrpcSslContexts.forClient().trustManager(ca.certificate().toFile());
        if (credential != null) {
            b.keyManager(credential.certificate().toFile(), credential.key().toFile());
        }
        return NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .sslContext(b.build())
                .build();
    }

    private void start(Path clientCa) throws Exception {
        ServerTls tls = ServerTls.load(new TlsFiles(node.certificate(), node.key(), clientCa));
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sslContext(tls.grpc())
                .addService(ServerInterceptors.intercept(new PrincipalEcho(), tls.principals()))
                .build()
                .start();
    }

    /** Answers ServerStatus with the principal its handler sees, as its health detail. */
    private final class PrincipalEcho extends TenureGrpc.TenureImplBase {
        @Override
        public void serverStatus(ServerStatusRequest request, StreamObserver<ServerStatusResponse> out) {
            served.incrementAndGet();
            out.onNext(ServerStatusResponse.newBuilder()
                    .setHealthDetail(Principal.current().orElse("(none)"))
                    .build());
            out.onCompleted();
        }
    }
}
