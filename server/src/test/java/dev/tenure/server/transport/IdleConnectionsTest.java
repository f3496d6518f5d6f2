package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.RawConnection;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.testkit.Pause;
import dev.tenure.testkit.TimeScale;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connections that do nothing are closed: one that does not finish its handshake within the
 * handshake timeout, and one that carries no call for the idle timeout (with a GOAWAY). A session's
 * stream is a call, so its connection is never idle.
 */
class IdleConnectionsTest {
    static final ConnectionLimits LIMITS = ConnectionLimits.defaults()
            .withHandshakeTimeout(Duration.ofSeconds(1))
            .withIdleTimeout(Duration.ofSeconds(1));

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(LIMITS);

    @Test
    void aConnectionThatSendsNothingIsClosedAfterTheHandshakeTimeout() throws Exception {
        long start = System.nanoTime();
        try (RawConnection silent = RawConnection.silent(node.server().port())) {
            List<RawConnection.Frame> heard = silent.untilClosed((int) timeoutMs(10));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(ms).as("closed after the handshake timeout").isBetween(900L, timeoutMs(5));
            // Its own close (the idle timeout says "max_idle" in its GOAWAY), not the client's.
            assertThat(heard)
                    .filteredOn(f -> f.type() == RawConnection.GOAWAY)
                    .isNotEmpty()
                    .noneSatisfy(f -> assertThat(f.debugData()).isEqualTo("max_idle"));
        }
    }

    @Test
    void aConnectionWithNoCallIsSentAGoawayAndClosedAfterTheIdleTimeout() throws Exception {
        long start = System.nanoTime();
        try (RawConnection idle = RawConnection.idle(node.server().port())) {
            List<RawConnection.Frame> heard = idle.untilClosed((int) timeoutMs(10));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(heard)
                    .filteredOn(f -> f.type() == RawConnection.GOAWAY)
                    .isNotEmpty()
                    .allSatisfy(f -> assertThat(f.debugData()).isEqualTo("max_idle"));
            assertThat(ms).as("closed after the idle timeout").isBetween(900L, timeoutMs(5));
        }
    }

    @Test
    void aSessionStreamKeepsItsConnectionPastTheIdleTimeout() throws Exception {
        ManagedChannel channel = node.newChannel();
        try {
            SessionStream stream = new SessionStream(channel);
            stream.open(10_000);
            int open = node.server().openConnections();

            Pause.of(LIMITS.idleTimeout().multipliedBy(3)); // three idle timeouts, with no call but the stream

            // Still answered on the same stream, and a new call on the channel goes on the same
            // connection: a connection sent a GOAWAY takes no new call, so it would have needed
            // another.
            stream.out.onNext(AttachRequest.newBuilder()
                    .setEcho(AttachRequest.Echo.newBuilder().setSeq(7))
                    .build());
            AttachResponse echoed = stream.next();
            assertThat(echoed.getEchoed().getSeq()).isEqualTo(7);
            TenureGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .serverStatus(ServerStatusRequest.getDefaultInstance());
            assertThat(node.server().openConnections()).isEqualTo(open);
            assertThat(stream.errors).isEmpty();
        } finally {
            channel.shutdownNow();
        }
    }

    private static long timeoutMs(long seconds) {
        return TimeScale.scaled(Duration.ofSeconds(seconds)).toMillis();
    }
}
