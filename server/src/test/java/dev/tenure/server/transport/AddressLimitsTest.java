package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With connectionsPerAddressMax below connectionsMax, one address cannot take every connection:
 * past its share a connection from it is closed at accept, while other addresses, and its own
 * connections already open, are served.
 */
class AddressLimitsTest {
    static final ConnectionLimits LIMITS =
            ConnectionLimits.defaults().withConnectionsMax(16).withConnectionsPerAddressMax(4);

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(LIMITS);

    @Test
    void oneAddressGetsItsShareAndTheOthersAreServed() throws Exception {
        TenureServer server = node.server();
        List<RawConnection> flood = new ArrayList<>();
        try {
            for (int i = 0; i < LIMITS.connectionsPerAddressMax(); i++) {
                flood.add(RawConnection.idleFrom("127.0.0.2", server.port()));
            }
            for (RawConnection c : flood) {
                assertThat(c.next(10_000).type())
                        .as("a served connection's first frame")
                        .isEqualTo(RawConnection.SETTINGS);
            }
            long refusedBefore = ConnectionLimitsTest.refused(node);
            try (RawConnection over = RawConnection.idleFrom("127.0.0.2", server.port())) {
                assertThat(over.next(10_000)).as("one more from 127.0.0.2").isNull();
            }
            assertThat(ConnectionLimitsTest.refused(node) - refusedBefore).isEqualTo(1);

            try (RawConnection other = RawConnection.idleFrom("127.0.0.3", server.port())) {
                assertThat(other.next(10_000).type()).as("another address").isEqualTo(RawConnection.SETTINGS);
            }
            ManagedChannel client = node.newChannel();
            try {
                assertThat(new SessionStream(client).open(10_000))
                        .as("a client on 127.0.0.1")
                        .isPositive();
            } finally {
                client.shutdownNow();
            }

            // A connection from 127.0.0.2 closed makes room for one more from it.
            int open = server.openConnections();
            flood.remove(0).close();
            Await.atMost(Duration.ofSeconds(10)).until("its connection closed", () -> server.openConnections() < open);
            RawConnection again = RawConnection.idleFrom("127.0.0.2", server.port());
            flood.add(again);
            assertThat(again.next(10_000).type()).isEqualTo(RawConnection.SETTINGS);
        } finally {
            for (RawConnection c : flood) {
                c.close();
            }
        }
    }
}
