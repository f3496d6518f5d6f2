package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.testkit.Await;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The production wiring: Netty plaintext channels, the system TimeSource, real threads. */
class RealChannelSmokeTest {
    @Test
    void opensAcquiresRenewsAndClosesOverLoopback() throws Exception {
        FakeTenure fake = new FakeTenure();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(fake)
                .build()
                .start();
        try (TenureClient client = TenureClient.builder()
                .endpoints("127.0.0.1:" + server.getPort())
                // A cold JVM's first Open over Netty can take most of a second (several on a
                // loaded machine), and the horizon counts from the Open's send time: a short TTL
                // would be LOST before it opened.
                .sessionTtl(Duration.ofSeconds(15))
                .build()) {
            Session session = client.openSession();
            Lease lease = session.acquire("a", Duration.ofSeconds(1));
            long firstHorizon = lease.horizonNanos();
            // Looked at every 20 ms, not spun on: a spinning test thread takes the core that the
            // client's own threads need on a loaded two-core machine.
            Await.atMost(Duration.ofSeconds(15))
                    .until("a keepalive's ack moves the horizon", () -> lease.horizonNanos() > firstHorizon);
            // The default grace, 900 ms, bounds what fence can promise.
            assertThat(lease.fence(Duration.ofMillis(500))).isEqualTo(lease.token());
            assertThat(fake.echoesAsked.get()).as("echoes went").isPositive();
            session.close();
            assertThat(lease.lost().get(5, TimeUnit.SECONDS)).isEqualTo(LossReason.RELEASED);
            assertThat(fake.attachCount(AttachRequest.KindCase.CLOSE)).isEqualTo(1);
        } finally {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
