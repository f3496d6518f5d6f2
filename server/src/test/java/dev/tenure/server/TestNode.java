package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Limits;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One real single-node cluster in this JVM, on free loopback ports, healthy when returned. */
final class TestNode {
    private TestNode() {}

    static TenureServer start(Path data) throws Exception {
        int port = TestPorts.freeTcpPort();
        ServerConfig config = new ServerConfig(
                0,
                List.of(new ServerConfig.Member(0, "127.0.0.1", port, TestPorts.freeAeronPortBase())),
                data,
                "127.0.0.1",
                TestPorts.freeTcpPort(),
                Duration.ofMillis(5),
                Duration.ofSeconds(5),
                Limits.defaults().valueBytesMax() + 65536,
                Limits.defaults(),
                Duration.ofSeconds(1),
                Duration.ofMillis(100),
                Duration.ofMinutes(10),
                false);
        TenureServer server = TenureServer.start(config, System.err);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"ok".equals(server.status().getHealth())) {
            assertThat(System.nanoTime()).as("node became healthy in time").isLessThan(deadline);
            Thread.sleep(50);
        }
        return server;
    }

    /** A plaintext channel of its own to {@code server}'s gateway. */
    static ManagedChannel channel(TenureServer server) {
        return NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
    }
}
