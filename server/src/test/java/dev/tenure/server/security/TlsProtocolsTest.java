package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both TLS ports take TLS 1.2 and 1.3 only, with the suites {@link ServerTls#CIPHER_SUITES} names
 * only: real handshakes against the gRPC port (Netty) and the admin port (the JDK's HTTPS server),
 * each configured as a node configures it.
 */
class TlsProtocolsTest {
    /** Offered alone: a suite every JDK enables by default, but without AEAD. */
    private static final String CBC = "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256";

    @TempDir
    static Path dir;

    static Authority ca;
    static ServerTls tls;

    private HttpsServer admin;
    private Server grpc;

    @BeforeAll
    static void certificates() {
        TestCertificates pki = new TestCertificates(dir);
        ca = pki.authority("tenure-test-ca");
        Credential node = ca.server("node-0", "127.0.0.1");
        tls = ServerTls.load(new TlsFiles(node.certificate(), node.key(), null));
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (admin != null) {
            admin.stop(0);
        }
        if (grpc != null) {
            grpc.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theAdminPortRefusesASuiteOutsideTheListAndTakesTls12And13() throws Exception {
        admin = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        admin.setHttpsConfigurator(tls.admin());
        admin.start();
        int port = admin.getAddress().getPort();
        assertThatThrownBy(() -> handshake(port, "TLSv1.2", CBC)).isInstanceOf(SSLException.class);
        assertThat(handshake(port, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))
                .isEqualTo("TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256");
        assertThat(handshake(port, "TLSv1.3", "TLS_AES_256_GCM_SHA384")).isEqualTo("TLSv1.3 TLS_AES_256_GCM_SHA384");
    }

    @Test
    void theGrpcPortRefusesASuiteOutsideTheListAndTakesTls12And13() throws Exception {
        grpc = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sslContext(tls.grpc())
                .addService(new TenureGrpc.TenureImplBase() {})
                .build()
                .start();
        int port = grpc.getPort();
        assertThatThrownBy(() -> handshake(port, "TLSv1.2", CBC)).isInstanceOf(SSLException.class);
        assertThat(handshake(port, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"))
                .isEqualTo("TLSv1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256");
        assertThat(handshake(port, "TLSv1.3", "TLS_AES_128_GCM_SHA256")).isEqualTo("TLSv1.3 TLS_AES_128_GCM_SHA256");
    }

    /**
     * What each port enables, whatever the JVM would: TLS 1.0 and 1.1 are refused by this JVM's
     * own {@code java.security} as well, so a handshake cannot tell the node's setting from the
     * JVM's; the enabled lists can.
     */
    @Test
    void bothPortsEnableExactlyTheNamedProtocolsAndOnlyTheNamedSuites() {
        SSLEngine engine = tls.grpc().newEngine(ByteBufAllocator.DEFAULT);
        // An OpenSSL engine (gRPC's, where BoringSSL is available) lists the pseudo-protocol
        // SSLv2Hello as always enabled; BoringSSL accepts no SSLv2-format hello at all.
        assertThat(engine.getEnabledProtocols())
                .filteredOn(p -> !p.equals("SSLv2Hello"))
                .containsExactlyInAnyOrderElementsOf(ServerTls.PROTOCOLS);
        assertThat(engine.getEnabledCipherSuites())
                .isNotEmpty()
                .allSatisfy(s -> assertThat(ServerTls.CIPHER_SUITES).contains(s));
        SSLParameters adminParameters = adminParameters(tls.admin());
        assertThat(adminParameters.getProtocols()).containsExactlyElementsOf(ServerTls.PROTOCOLS);
        assertThat(adminParameters.getCipherSuites()).containsExactlyElementsOf(ServerTls.CIPHER_SUITES);
    }

    /** The parameters the admin port's configurator gives each connection. */
    private static SSLParameters adminParameters(HttpsConfigurator configurator) {
        SSLParameters[] given = new SSLParameters[1];
        configurator.configure(new HttpsParameters() {
            @Override
            public HttpsConfigurator getHttpsConfigurator() {
                return configurator;
            }

            @Override
            public InetSocketAddress getClientAddress() {
                return new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
            }

            @Override
            public void setSSLParameters(SSLParameters params) {
                given[0] = params;
            }
        });
        return given[0];
    }

    /** A TLS handshake offering one protocol and one suite; returns what was agreed. */
    private static String handshake(int port, String protocol, String suite) throws IOException {
        try (SSLSocket s = (SSLSocket) ca.clientContext(null).getSocketFactory().createSocket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            SSLParameters p = s.getSSLParameters();
            p.setProtocols(new String[] {protocol});
            p.setCipherSuites(new String[] {suite});
            p.setApplicationProtocols(new String[] {"h2"});
            s.setSSLParameters(p);
            s.startHandshake();
            return s.getSession().getProtocol() + " " + s.getSession().getCipherSuite();
        }
    }
}
