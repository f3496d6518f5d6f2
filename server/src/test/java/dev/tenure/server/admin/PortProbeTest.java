package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

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
        HealthStatusManager health = new HealthStatusManager();
        Server grpc = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(health.getHealthService())
                .build()
                .start();
        try {
            PortProbe probe =
                    new PortProbe("127.0.0.1", grpc.getPort(), null, Duration.ofSeconds(5), Duration.ofMillis(600));
            // Stale by now, unless a probe is answered.
            Pause.forMillis(700);
            assertThat(probe.problem()).isNotNull();
            Await.atMost(Duration.ofSeconds(10))
                    .every(Duration.ofMillis(100))
                    .until("an answering port is not reported", () -> {
                        probe.probe();
                        return probe.problem() == null;
                    });
        } finally {
            grpc.shutdownNow();
        }
    }
}
