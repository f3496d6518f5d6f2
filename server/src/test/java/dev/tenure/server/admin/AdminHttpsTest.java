package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.server.security.ServerTls;
import dev.tenure.server.security.TlsFiles;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** On a node with TLS the admin port serves HTTPS only, with the gRPC port's certificate and client CA. */
class AdminHttpsTest {
    private static final ServerStatusResponse OK =
            ServerStatusResponse.newBuilder().setHealth("ok").build();
    private static final ProbeResult FRESH = new ProbeResult(OK, 0, 1_000);

    @TempDir
    static Path dir;

    static Authority ca;
    static Credential node;
    static Credential monitor;

    @BeforeAll
    static void certificates() {
        TestCertificates pki = new TestCertificates(dir);
        ca = pki.authority("tenure-test-ca");
        node = ca.server("node-0", "127.0.0.1");
        monitor = ca.client("prometheus");
    }

    @Test
    void healthIsServedOverHttpsToAClientTrustingTheCa() throws Exception {
        try (AdminHttp admin = start(null)) {
            HttpResponse<String> health = get(https(null), "https", admin);
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"health\":\"ok\"");
        }
    }

    @Test
    void withAClientCaHealthStaysOpenAndStatusAndMetricsNeedAMonitor() throws Exception {
        Credential other = ca.client("orders-worker");
        try (AdminHttp admin = start(ca.certificate())) {
            assertThat(get(https(null), "https", admin).statusCode())
                    .as("/health without a certificate: for load balancers")
                    .isEqualTo(200);
            for (String path : new String[] {"/status", "/metrics"}) {
                assertThat(get(https(monitor), "https", admin, path).statusCode())
                        .as(path + " to a monitor")
                        .isEqualTo(200);
                HttpResponse<String> anonymous = get(https(null), "https", admin, path);
                assertThat(anonymous.statusCode()).isEqualTo(403);
                assertThat(anonymous.body()).contains("a client without a certificate may not monitor");
                HttpResponse<String> notMonitor = get(https(other), "https", admin, path);
                assertThat(notMonitor.statusCode()).isEqualTo(403);
                assertThat(notMonitor.body()).contains("principal orders-worker may not monitor");
            }
        }
    }

    @Test
    void theDashboardAndItsApiNeedAMonitorAsStatusDoes() throws Exception {
        Credential other = ca.client("orders-worker");
        try (AdminHttp admin = start(ca.certificate())) {
            admin.serveDashboard(new Dashboard.Source() {
                @Override
                public ProbeResult cluster() {
                    return FRESH;
                }

                @Override
                public java.util.concurrent.CompletableFuture<dev.tenure.api.v1.ListLocksResponse> locks(
                        String prefix, String after) {
                    return java.util.concurrent.CompletableFuture.completedFuture(
                            dev.tenure.api.v1.ListLocksResponse.getDefaultInstance());
                }

                @Override
                public java.util.concurrent.CompletableFuture<dev.tenure.api.v1.LockStatusResponse> lock(String name) {
                    return java.util.concurrent.CompletableFuture.completedFuture(
                            dev.tenure.api.v1.LockStatusResponse.getDefaultInstance());
                }

                @Override
                public dev.tenure.gateway.WatchHub feed() {
                    return new dev.tenure.gateway.WatchHub(1, 1, Runnable::run);
                }
            });
            for (String path : new String[] {
                "/", "/dashboard.js", "/dashboard.css", "/api/cluster", "/api/locks", "/api/lock?name=a"
            }) {
                assertThat(get(https(monitor), "https", admin, path).statusCode())
                        .as(path + " to a monitor")
                        .isEqualTo(200);
            }
            for (String path : new String[] {
                "/", "/dashboard.js", "/dashboard.css", "/api/cluster", "/api/locks", "/api/lock?name=a", "/api/events"
            }) {
                HttpResponse<String> anonymous = get(https(null), "https", admin, path);
                assertThat(anonymous.statusCode())
                        .as(path + " without a certificate")
                        .isEqualTo(403);
                assertThat(anonymous.body()).contains("a client without a certificate may not monitor");
                HttpResponse<String> notMonitor = get(https(other), "https", admin, path);
                assertThat(notMonitor.statusCode())
                        .as(path + " to orders-worker")
                        .isEqualTo(403);
                assertThat(notMonitor.body()).contains("principal orders-worker may not monitor");
            }
        }
    }

    @Test
    void plainHttpIsNotServed() throws Exception {
        try (AdminHttp admin = start(null)) {
            assertThatThrownBy(() -> get(
                            HttpClient.newBuilder()
                                    .connectTimeout(Duration.ofSeconds(5))
                                    .build(),
                            "http",
                            admin))
                    .isInstanceOf(IOException.class);
        }
    }

    private static AdminHttp start(Path clientCa) throws IOException {
        ServerTls tls = ServerTls.load(new TlsFiles(node.certificate(), node.key(), clientCa));
        // Only "prometheus" monitors, as an ACL giving it alone `monitor` would say.
        return AdminHttp.start(
                "127.0.0.1", 0, tls.admin(), p -> p.equals(Optional.of("prometheus")), () -> FRESH, () -> OK, () -> "");
    }

    private static HttpResponse<String> get(HttpClient http, String scheme, AdminHttp admin)
            throws IOException, InterruptedException {
        return get(http, scheme, admin, "/health");
    }

    private static HttpResponse<String> get(HttpClient http, String scheme, AdminHttp admin, String path)
            throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + admin.port() + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A JDK HTTP client trusting the CA, presenting {@code credential} if not null. */
    private static HttpClient https(Credential credential) {
        SSLContext ssl = ca.clientContext(credential);
        return HttpClient.newBuilder()
                .sslContext(ssl)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }
}
