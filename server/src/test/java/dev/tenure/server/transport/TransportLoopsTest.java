package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.server.fatal.FatalErrors;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The gRPC server's event loops are the node's: one that ends while the node serves ends the
 * node (exit 13), since a node that accepts no connection must not stay up looking healthy.
 */
class TransportLoopsTest {
    private final RecordedFatals fatals = new RecordedFatals();
    private final FatalErrors fatalErrors = new FatalErrors(fatals);

    @Test
    void anAcceptLoopThatEndsWhileTheNodeServesIsFatal() throws Exception {
        TransportLoops loops = TransportLoops.start(fatalErrors);
        serving(loops);
        try {
            var unused = loops.acceptLoop().shutdownGracefully(0, 0, TimeUnit.SECONDS); // its end is awaited below
            Await.atMost(Duration.ofSeconds(10))
                    .every(Duration.ofMillis(20))
                    .until(
                            "the accept loop's end reported",
                            () -> !fatals.lines().isEmpty());
            assertThat(fatals.lines())
                    .singleElement()
                    .asString()
                    .matches("tenure: fatal: gateway stopped \\(exit 13\\): thread tenure-grpc-accept-\\d+-1 ended");
        } finally {
            // Not server.shutdown(): with its accept loop gone it would wait forever (see acceptEnded).
            fatalErrors.stopping();
            assertThat(loops.acceptEnded()).isTrue();
            loops.close();
        }
    }

    @Test
    void loopsThatEndBecauseTheNodeStopsAreNot() throws Exception {
        TransportLoops loops = TransportLoops.start(fatalErrors);
        Server server = serving(loops);
        fatalErrors.stopping();
        server.shutdown();
        assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        loops.close();
        loops.acceptLoop().terminationFuture().await(10, TimeUnit.SECONDS);
        assertThat(fatals.lines()).isEmpty();
    }

    private Server serving(TransportLoops loops) throws Exception {
        Connections connections = new Connections(ConnectionLimits.defaults(), false);
        Server server = loops.serveOn(
                        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)),
                        connections.acceptor())
                .build()
                .start();
        fatalErrors.serving();
        return server;
    }
}
