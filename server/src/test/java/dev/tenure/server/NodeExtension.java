package dev.tenure.server;

import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.server.security.ClusterSecret;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real nodes in this JVM for one test class, on free loopback ports: a lone member or a cluster
 * of three, each under a data directory of its own, healthy (a leader elected) before the first
 * test and closed, data and all, after the last. Tests talk to them over gRPC, as clients do.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final NodeExtension node = NodeExtension.lone();
 * }</pre>
 */
public final class NodeExtension implements BeforeAllCallback, AfterAllCallback {
    private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CALL_DEADLINE = Duration.ofSeconds(30);

    private final int members;
    private final ClusterSecret clusterSecret;
    private final ConnectionLimits connections;
    private UnaryOperator<ServerConfig> tweak = UnaryOperator.identity();
    private final List<ServerConfig.Member> planned = new ArrayList<>();
    private Path data;
    private final List<TenureServer> servers = new ArrayList<>();
    private final RecordedFatals fatals = new RecordedFatals();
    private ManagedChannel channel;

    private NodeExtension(int members, ClusterSecret clusterSecret, ConnectionLimits connections) {
        this.members = members;
        this.clusterSecret = clusterSecret;
        this.connections = connections;
    }

    /** One member alone: a cluster of one, as `tenure server` runs by default. */
    public static NodeExtension lone() {
        return new NodeExtension(1, null, ConnectionLimits.defaults());
    }

    /** One member alone whose consensus module admits only clients that prove {@code secret}. */
    public static NodeExtension lone(ClusterSecret secret) {
        return new NodeExtension(1, secret, ConnectionLimits.defaults());
    }

    /** One member alone whose gRPC port gives client connections {@code connections}. */
    public static NodeExtension lone(ConnectionLimits connections) {
        return new NodeExtension(1, null, connections);
    }

    /** One member alone, whose configuration {@code tweak} changes after the tests' timings. */
    public static NodeExtension lone(UnaryOperator<ServerConfig> tweak) {
        NodeExtension node = lone();
        node.tweak = tweak;
        return node;
    }

    /** One member alone with {@code connections}, whose configuration {@code tweak} changes after the tests' timings. */
    public static NodeExtension lone(ConnectionLimits connections, UnaryOperator<ServerConfig> tweak) {
        NodeExtension node = lone(connections);
        node.tweak = tweak;
        return node;
    }

    /** Three members in this JVM. */
    public static NodeExtension cluster() {
        return new NodeExtension(3, null, ConnectionLimits.defaults());
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        data = Files.createTempDirectory("tenure-test-node-");
        planned.clear();
        for (int i = 0; i < members; i++) {
            planned.add(new ServerConfig.Member(
                    i, "127.0.0.1", LoopbackPorts.freeTcpPort(), TestPorts.freeAeronPortBase()));
        }
        try {
            for (int i = 0; i < members; i++) {
                Path dir = members == 1 ? data : data.resolve("node-" + i);
                servers.add(TenureServer.start(
                        tweak.apply(config(i, planned, dir)
                                .withClusterSecret(clusterSecret)
                                .withConnections(connections)),
                        fatals));
            }
            for (TenureServer server : servers) {
                awaitHealthy(server);
                if (!connections.equals(ConnectionLimits.defaults())) {
                    // These tests count connections; the probe's would come and go among them.
                    server.stopProbingPort();
                }
            }
        } catch (Exception | AssertionError e) {
            afterAll(context);
            throw e;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
        for (TenureServer server : servers) {
            server.close();
        }
        servers.clear();
        if (data != null) {
            Dirs.deleteTree(data);
        }
        // Every test of the class ran on nodes that stayed whole: `tenure server` would have
        // ended its process on any of these.
        if (!fatals.lines().isEmpty()) {
            throw new AssertionError("a node met a fatal error: " + fatals.lines());
        }
    }

    private static ServerConfig config(int nodeId, List<ServerConfig.Member> members, Path data) {
        return ServerConfig.member(nodeId, members, data, LoopbackPorts.freeTcpPort())
                .with(TestTimings::apply);
    }

    private static void awaitHealthy(TenureServer server) throws InterruptedException {
        Await.atMost(HEALTHY_TIMEOUT)
                .every(Duration.ofMillis(50))
                .until("node on port " + server.port() + " healthy", server::status, s -> "ok".equals(s.getHealth()));
    }

    /** The lone member, or member 0 of the cluster. */
    public TenureServer server() {
        return servers.get(0);
    }

    public List<TenureServer> servers() {
        return List.copyOf(servers);
    }

    /** Every member as planned: its ports, Aeron's included. */
    public List<ServerConfig.Member> members() {
        return List.copyOf(planned);
    }

    /** A plaintext channel to {@link #server()}'s gateway, shared by the class's tests. */
    public synchronized ManagedChannel channel() {
        if (channel == null) {
            channel = newChannel();
        }
        return channel;
    }

    /** A plaintext channel of its own to {@link #server()}'s gateway (the caller shuts it down). */
    public ManagedChannel newChannel() {
        return NettyChannelBuilder.forAddress("127.0.0.1", server().port())
                .usePlaintext()
                .build();
    }

    /** A blocking stub on {@link #channel()} whose calls fail after 30 s (scaled) instead of hanging. */
    public TenureGrpc.TenureBlockingStub stub() {
        return TenureGrpc.newBlockingStub(channel())
                .withDeadlineAfter(TimeScale.scaled(CALL_DEADLINE).toMillis(), TimeUnit.MILLISECONDS);
    }
}
