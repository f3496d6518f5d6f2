package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.security.ServerTls;
import dev.tenure.server.security.TlsFiles;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which outcomes of a probe of the client port show that the node answered on it. */
class PortProbeTest {

    @Test
    void aStatusTheNodeGaveCountsEvenARefusal() {
        assertThat(PortProbe.answeredByTheNode(Status.OK)).isTrue();
        assertThat(PortProbe.answeredByTheNode(Status.PERMISSION_DENIED)).isTrue();
        assertThat(PortProbe.answeredByTheNode(Status.UNAUTHENTICATED)).isTrue();
        assertThat(PortProbe.answeredByTheNode(Status.UNIMPLEMENTED)).isTrue();
    }

    @Test
    void aHandshakeTheNodeEndedWithAnAlertCounts() {
        Status alert =
                Status.UNAVAILABLE.withCause(new SSLHandshakeException("Received fatal alert: certificate_unknown"));
        assertThat(PortProbe.answeredByTheNode(alert)).isTrue();
    }

    @Test
    void noConnectionOrNoAnswerInTimeDoesNotCount() {
        assertThat(PortProbe.answeredByTheNode(Status.UNAVAILABLE.withCause(new ConnectException("refused"))))
                .isFalse();
        assertThat(PortProbe.answeredByTheNode(
                        Status.UNAVAILABLE.withCause(new SSLHandshakeException("PKIX path building failed"))))
                .isFalse();
        assertThat(PortProbe.answeredByTheNode(Status.DEADLINE_EXCEEDED)).isFalse();
        assertThat(PortProbe.answeredByTheNode(Status.UNAVAILABLE)).isFalse();
    }

    @Test
    void aPortThatTakesConnectionsButNeverAnswersIsReportedAndOneThatAnswersIsNot() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            PortProbe probe = new PortProbe(
                    "127.0.0.1", silent.getLocalPort(), null, Duration.ofMillis(200), Duration.ofMillis(600));
            Await.atMost(Duration.ofSeconds(10))
                    .every(Duration.ofMillis(100))
                    .until("the silent port is reported with a failed try", () -> {
                        probe.probe();
                        return probe.problem() != null && probe.problem().contains("last try");
                    });
            assertThat(probe.problem())
                    .startsWith(
                            "the client port 127.0.0.1:" + silent.getLocalPort() + " answered no new connection for")
                    .contains("DEADLINE_EXCEEDED");
        }
        Server grpc = healthServer(null);
        try {
            staleThenAnswered(
                    new PortProbe("127.0.0.1", grpc.getPort(), null, Duration.ofSeconds(5), Duration.ofMillis(600)));
        } finally {
            grpc.shutdownNow();
        }
    }

    /**
     * A TLS port is probed as a client connects, over and over, with one client context: building
     * one derives a key from a password (PKCS#12), tens of milliseconds of CPU a probe.
     */
    @Test
    void aTlsPortIsProbedWithOneClientContextForEveryProbe(@TempDir Path dir) throws Exception {
        Credential node = new TestCertificates(dir).authority("tenure-test-ca").server("node-0", "127.0.0.1");
        ServerTls tls = ServerTls.load(new TlsFiles(node.certificate(), node.key(), null));
        Server grpc = healthServer(tls);
        try {
            PortProbe probe =
                    new PortProbe("127.0.0.1", grpc.getPort(), tls, Duration.ofSeconds(5), Duration.ofMillis(600));
            for (int answered = 0; answered < 3; answered++) {
                staleThenAnswered(probe);
            }
            assertThat(probe.selfClient(tls)).isSameAs(probe.selfClient(tls));
        } finally {
            grpc.shutdownNow();
        }
    }

    /** A gRPC server with the standard health service, on TLS as a node serves it if {@code tls}. */
    private static Server healthServer(@Nullable ServerTls tls) throws IOException {
        NettyServerBuilder b =
                NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        if (tls != null) {
            b.sslContext(tls.grpc());
        }
        return b.addService(new HealthStatusManager().getHealthService())
                .build()
                .start();
    }

    /** {@code probe} (whose staleness is 600 ms) is reported once stale, and no longer once a probe is answered. */
    private static void staleThenAnswered(PortProbe probe) throws InterruptedException {
        Pause.forMillis(700);
        assertThat(probe.problem()).isNotNull();
        Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(100))
                .until("an answering port is not reported", () -> {
                    probe.probe();
                    return probe.problem() == null;
                });
    }
}
