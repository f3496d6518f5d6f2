package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Anyone who reaches the admin port may ask for /health, so /health must never write to the
 * replicated log: it answers from the node's own probe. With that probe stopped, nothing else
 * writes on an idle node, and the log must be exactly as long after 10,000 calls as before.
 */
class HealthFromProbeTest {
    /** As many as the issue asks the figure for. */
    private static final int CALLS = 10_000;

    // A request timeout longer than the test keeps the stopped probe's last result from counting as
    // stale (a stuck probe), so every call below is answered 200 from it.
    @RegisterExtension
    static final NodeExtension node =
            NodeExtension.lone(config -> config.with(c -> c.requestTimeout = Duration.ofMinutes(30)));

    @Test
    void tenThousandHealthCallsLeaveTheLogAsLongAsItWas() throws Exception {
        TenureServer server = node.server();
        HttpClient http = HttpClient.newHttpClient();
        Await.atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(50))
                .until(
                        "/health answers ok from the node's probe",
                        () -> health(http, server).statusCode() == 200);
        server.stopProbingLog();
        long before = awaitLogQuiet(server);

        long firstAgeMs = -1;
        long lastAgeMs = -1;
        long start = System.nanoTime();
        for (int i = 0; i < CALLS; i++) {
            HttpResponse<String> r = health(http, server);
            assertThat(r.statusCode()).as("call %d: %s", i, r.body()).isEqualTo(200);
            JsonObject body = JsonParser.parseString(r.body()).getAsJsonObject();
            lastAgeMs = body.get("probe_age_ms").getAsLong();
            if (firstAgeMs < 0) {
                firstAgeMs = lastAgeMs;
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        long after = server.appliedLogPosition();
        System.out.printf(
                "HealthFromProbeTest: log position %d before and %d after %,d /health calls (all 200, in %d ms;"
                        + " probe age %d -> %d ms)%n",
                before, after, CALLS, millis, firstAgeMs, lastAgeMs);
        assertThat(after)
                .as("the log's position after %,d /health calls", CALLS)
                .isEqualTo(before);
        assertThat(lastAgeMs)
                .as("the answers are the one stopped probe's, aging")
                .isGreaterThan(firstAgeMs);

        // The measure sees log entries: one status read through the log moves it.
        server.status();
        Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(20))
                .until("a status read through the log moves its position", () -> server.appliedLogPosition() > after);
    }

    /**
     * Waits until the applied log position has stayed put for a second, so that a probe still in
     * flight when the probe was stopped has been applied; returns that position.
     */
    private static long awaitLogQuiet(TenureServer server) throws InterruptedException {
        long[] seen = {-1, 0}; // position, and since when (nanos)
        Await.atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(100))
                .until("the log position stays put for 1 s", () -> {
                    long position = server.appliedLogPosition();
                    long now = System.nanoTime();
                    if (position != seen[0]) {
                        seen[0] = position;
                        seen[1] = now;
                        return false;
                    }
                    return now - seen[1] >= Duration.ofSeconds(1).toNanos();
                });
        return seen[0];
    }

    private static HttpResponse<String> health(HttpClient http, TenureServer server) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/health"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
