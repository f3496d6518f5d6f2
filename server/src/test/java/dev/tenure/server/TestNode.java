package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Limits;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Real nodes in this JVM, on free loopback ports: a lone member or a cluster of three, healthy when returned. */
final class TestNode {
    private TestNode() {}

    static TenureServer start(Path data) throws Exception {
        int port = TestPorts.freeTcpPort();
        TenureServer server = TenureServer.start(
                config(0, List.of(new ServerConfig.Member(0, "127.0.0.1", port, TestPorts.freeAeronPortBase())), data),
                System.err);
        awaitHealthy(server);
        return server;
    }

    /** Three members in this JVM, each under {@code data}/node-i, all healthy (a leader elected) when returned. */
    static List<TenureServer> startCluster(Path data) throws Exception {
        List<ServerConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(
                    new ServerConfig.Member(i, "127.0.0.1", TestPorts.freeTcpPort(), TestPorts.freeAeronPortBase()));
        }
        List<TenureServer> servers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                servers.add(TenureServer.start(config(i, members, data.resolve("node-" + i)), System.err));
            }
            for (TenureServer server : servers) {
                awaitHealthy(server);
            }
        } catch (Exception | AssertionError e) {
            for (TenureServer server : servers) {
                server.close();
            }
            throw e;
        }
        return servers;
    }

    private static ServerConfig config(int nodeId, List<ServerConfig.Member> members, Path data) {
        return new ServerConfig(
                nodeId,
                members,
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
    }

    private static void awaitHealthy(TenureServer server) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"ok".equals(server.status().getHealth())) {
            assertThat(System.nanoTime()).as("node became healthy in time").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** A plaintext channel of its own to {@code server}'s gateway. */
    static ManagedChannel channel(TenureServer server) {
        return NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
    }
}
