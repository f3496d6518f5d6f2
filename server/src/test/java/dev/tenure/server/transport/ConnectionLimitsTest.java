package dev.tenure.server.transport;

import static dev.tenure.server.InProcessServerTest.acquire;
import static dev.tenure.server.InProcessServerTest.release;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.AdminScrape;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.RawConnection;
import dev.tenure.server.TenureServer;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A node takes at most connectionsMax client connections: one more is closed as it is accepted,
 * before the node sends it anything, while the connections already open are served as before.
 */
class ConnectionLimitsTest {
    static final ConnectionLimits LIMITS = ConnectionLimits.defaults().withConnectionsMax(16);

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(LIMITS);

    @Test
    void connectionsPastTheLimitAreClosedAtAcceptWhileOpenOnesAreServed() throws Exception {
        TenureServer server = node.server();
        ManagedChannel client = node.newChannel();
        List<RawConnection> flood = new ArrayList<>();
        try {
            long session = new SessionStream(client).open(10_000);
            TenureGrpc.TenureBlockingStub stub =
                    TenureGrpc.newBlockingStub(client).withDeadlineAfter(30, TimeUnit.SECONDS);
            int open = server.openConnections();
            assertThat(open).as("the client's connection is open").isPositive();

            for (int i = open; i < LIMITS.connectionsMax(); i++) {
                flood.add(RawConnection.idle(server.port()));
            }
            // Each is served: the node's SETTINGS frame is the first thing it sends.
            for (RawConnection c : flood) {
                assertThat(c.next(10_000).type()).isEqualTo(RawConnection.SETTINGS);
            }
            assertThat(server.openConnections()).isEqualTo(LIMITS.connectionsMax());

            long refusedBefore = refused();
            long cycles = 0;
            for (int i = 0; i < 50; i++) {
                try (RawConnection over = RawConnection.idle(server.port())) {
                    // Closed at accept: not even the SETTINGS every served connection gets first.
                    assertThat(over.next(10_000))
                            .as("what a connection past the limit hears")
                            .isNull();
                }
                // Meanwhile the client connected before the flood is served as before.
                AcquireResponse granted = stub.acquire(acquire(session, 2 * i + 1, "flooded", 0));
                assertThat(granted.getCode()).isEqualTo(Code.CODE_OK);
                assertThat(stub.release(release(
                                        session,
                                        2 * i + 2,
                                        "flooded",
                                        granted.getGrant().getToken()))
                                .getCode())
                        .isEqualTo(Code.CODE_OK);
                cycles++;
            }
            assertThat(cycles).isEqualTo(50);
            assertThat(refused() - refusedBefore).isEqualTo(50);
            assertThat(server.openConnections()).isEqualTo(LIMITS.connectionsMax());

            for (RawConnection c : flood) {
                c.close();
            }
            Await.atMost(Duration.ofSeconds(10))
                    .until("the flood's connections closed", () -> server.openConnections() == open);
            // Room again: a new client is served.
            ManagedChannel late = node.newChannel();
            try {
                assertThat(new SessionStream(late).open(10_000)).isPositive();
            } finally {
                late.shutdownNow();
            }
        } finally {
            for (RawConnection c : flood) {
                c.close();
            }
            client.shutdownNow();
        }
    }

    /** The node's count of connections refused at accept, from its metrics. */
    private static long refused() throws Exception {
        return refused(node);
    }

    /** tenure_connections_refused_total of {@code node}'s member 0. */
    static long refused(NodeExtension node) throws Exception {
        String metrics = AdminScrape.get(node.server().adminPort(), "/metrics").body();
        return metrics.lines()
                .filter(l -> l.startsWith("tenure_connections_refused_total"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no tenure_connections_refused_total in\n" + metrics));
    }
}
