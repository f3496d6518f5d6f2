package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The admin port answers only what it serves: GET (and HEAD) on its three exact paths. Anything
 * else is refused before the node's status or metrics are read, so a DELETE never looks like it
 * worked and no request reads what it did not ask for.
 */
class AdminHttpMethodsTest {
    private static final ServerStatusResponse OK =
            ServerStatusResponse.newBuilder().setHealth("ok").setNodeId(0).build();
    private static final List<String> PATHS = List.of("/health", "/status", "/metrics");
    private static final List<String> OTHER_METHODS = List.of("DELETE", "POST", "PUT", "PATCH", "OPTIONS");

    private final AtomicInteger statusReads = new AtomicInteger();
    private final AtomicInteger metricsReads = new AtomicInteger();
    private final AtomicReference<ProbeResult> probe = new AtomicReference<>(new ProbeResult(OK, 200, 3_000));
    private final HttpClient http = HttpClient.newHttpClient();

    private AdminHttp start() throws IOException {
        return AdminHttp.start(
                "127.0.0.1",
                0,
                probe::get,
                () -> {
                    statusReads.incrementAndGet();
                    return OK;
                },
                () -> {
                    metricsReads.incrementAndGet();
                    return "tenure_up 1\n";
                });
    }

    @Test
    void deleteStatusIsRefused405WithAllowAndReadsNothing() throws Exception {
        try (AdminHttp admin = start()) {
            HttpResponse<String> r = send(admin, "DELETE", "/status");
            assertThat(r.statusCode()).isEqualTo(405);
            assertThat(r.headers().firstValue("Allow")).contains("GET, HEAD");
            assertThat(r.body())
                    .contains("method DELETE is not served on /status")
                    .doesNotContain("health");
            assertThat(statusReads).hasValue(0);
        }
    }

    @Test
    void everyOtherMethodOnEveryPathIs405AndNothingIsRead() throws Exception {
        try (AdminHttp admin = start()) {
            for (String path : PATHS) {
                for (String method : OTHER_METHODS) {
                    HttpResponse<String> r = send(admin, method, path);
                    assertThat(r.statusCode()).as(method + " " + path).isEqualTo(405);
                    assertThat(r.headers().firstValue("Allow"))
                            .as(method + " " + path)
                            .contains(AdminHttp.ALLOWED_METHODS);
                }
            }
            assertThat(statusReads).hasValue(0);
            assertThat(metricsReads).hasValue(0);
        }
    }

    @Test
    void pathsItDoesNotServeAre404WhateverTheirPrefix() throws Exception {
        try (AdminHttp admin = start()) {
            for (String path : List.of("/", "/statusx", "/status/all", "/healthz", "/metrics/x", "/admin")) {
                for (String method : List.of("GET", "DELETE")) {
                    HttpResponse<String> r = send(admin, method, path);
                    assertThat(r.statusCode()).as(method + " " + path).isEqualTo(404);
                    assertThat(r.body()).as(method + " " + path).contains("no such path");
                }
            }
            assertThat(statusReads).hasValue(0);
            assertThat(metricsReads).hasValue(0);
        }
    }

    @Test
    void getAndHeadAreServed() throws Exception {
        try (AdminHttp admin = start()) {
            assertThat(send(admin, "GET", "/status").statusCode()).isEqualTo(200);
            assertThat(send(admin, "GET", "/metrics").body()).isEqualTo("tenure_up 1\n");
            HttpResponse<String> head = send(admin, "HEAD", "/health");
            assertThat(head.statusCode()).isEqualTo(200);
            assertThat(head.body()).isEmpty();
            HttpResponse<String> health = send(admin, "GET", "/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).contains("\"health\":\"ok\"").contains("\"probe_age_ms\":200");
            assertThat(statusReads)
                    .as("/health reads the probe, never the status")
                    .hasValue(1);
        }
    }

    @Test
    void healthSaysStartingBeforeTheFirstProbeAndStaleWhenTheProbeStopped() throws Exception {
        try (AdminHttp admin = start()) {
            probe.set(ProbeResult.none(3_000));
            HttpResponse<String> starting = send(admin, "GET", "/health");
            assertThat(starting.statusCode()).isEqualTo(503);
            assertThat(starting.body()).contains("\"health\":\"starting\"");

            probe.set(new ProbeResult(OK, 3_001, 3_000));
            HttpResponse<String> stale = send(admin, "GET", "/health");
            assertThat(stale.statusCode()).isEqualTo(503);
            assertThat(stale.body())
                    .contains("\"health\":\"stale\"")
                    .contains("last finished 3001 ms ago (more than 3000 ms), then found: ok")
                    .contains("\"probe_age_ms\":3001");
            assertThat(statusReads).hasValue(0);
        }
    }

    private HttpResponse<String> send(AdminHttp admin, String method, String path)
            throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
                        .method(method, HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
