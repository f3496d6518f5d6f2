package dev.tenure.packaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.process.RealNode;
import dev.tenure.testkit.TimeScale;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * tenure-client-all in one JVM with an application's own gRPC, older than the one the client is
 * built on (1.70, jetcd's): both work, each with its own classes. Without the relocation the two
 * gRPCs would be one set of class names, and whichever loaded first would serve both.
 */
class ShadedClientIT {

    private static final String APPLICATION_GRPC = "1.70.0";

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    @Test
    void theApplicationsOwnGrpcIsTheOlderOneAndServes() throws Exception {
        assertThat(io.grpc.internal.GrpcUtil.getGrpcBuildVersion().getImplementationVersion())
                .isEqualTo(APPLICATION_GRPC);
        HealthStatusManager health = new HealthStatusManager();
        Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
                .addService(health.getHealthService())
                .build()
                .start();
        ManagedChannel channel = Grpc.newChannelBuilderForAddress(
                        "127.0.0.1", server.getPort(), InsecureChannelCredentials.create())
                .build();
        try (TenureClient client = client();
                Session session = client.openSession()) {
            // The Tenure client's channel is up and working while the application's serves.
            assertThat(session.acquire("beside-grpc").token()).isPositive();
            assertThat(HealthGrpc.newBlockingStub(channel)
                            .withDeadlineAfter(10, TimeUnit.SECONDS)
                            .check(HealthCheckRequest.getDefaultInstance())
                            .getStatus())
                    .isEqualTo(ServingStatus.SERVING);
        } finally {
            channel.shutdownNow();
            server.shutdownNow();
        }
    }

    @Test
    void theShadedClientLocksAndFencesWithItsOwnGrpc() {
        try (TenureClient client = client();
                Session first = client.openSession();
                Session second = client.openSession()) {
            Lease lease = first.acquire("orders");
            long token = lease.token();
            client.kv().put("orders/cursor", "42".getBytes(StandardCharsets.UTF_8), "orders", token);
            lease.release();
            Lease next = second.acquire("orders");
            assertThat(next.token()).isGreaterThan(token);
            assertThatThrownBy(() ->
                            client.kv().put("orders/cursor", "43".getBytes(StandardCharsets.UTF_8), "orders", token))
                    .isInstanceOf(StaleTokenException.class);
            assertThat(client.kv().get("orders/cursor").orElseThrow().value())
                    .isEqualTo("42".getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void theClientsGrpcIsRelocatedAndKeepsItsNativeTransport() throws Exception {
        Class<?> relocated = Class.forName("dev.tenure.shaded.io.grpc.ManagedChannel");
        assertThat(location(relocated)).isEqualTo(location(TenureClient.class));
        assertThat(location(io.grpc.ManagedChannel.class)).isNotEqualTo(location(TenureClient.class));
        // Netty loads epoll by a file name that spells its package: renamed with it, it loads.
        Class<?> epoll = Class.forName("dev.tenure.shaded.io.grpc.netty.shaded.io.netty.channel.epoll.Epoll");
        Throwable cause = (Throwable) epoll.getMethod("unavailabilityCause").invoke(null);
        assertThat(cause).as("epoll unavailable").isNull();
    }

    @Test
    void theJarHoldsOnlyRelocatedClassesAndNamesItsVersion() throws Exception {
        Path jar = location(TenureClient.class);
        assertThat(jar.getFileName().toString()).startsWith("tenure-client-all-");
        List<String> foreign = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream()
                    .map(e -> e.getName())
                    .filter(name -> name.endsWith(".class"))
                    .filter(name -> !name.startsWith("dev/tenure/"))
                    .forEach(foreign::add);
            assertThat(file.getManifest().getMainAttributes().getValue("Implementation-Version"))
                    .isNotBlank();
        }
        assertThat(foreign).isEmpty();
    }

    private static TenureClient client() {
        return TenureClient.builder()
                .endpoints(NODE.endpoint())
                .requestTimeout(TimeScale.scaled(Duration.ofSeconds(20)))
                .build();
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
