package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java example, verbatim but for the endpoint, against a real server. */
class ReadmeExampleIT {

    @TempDir
    Path data;

    // The README's code, verbatim, leaves the future of its invalidation callback alone.
    @SuppressWarnings("FutureReturnValueIgnored")
    @Test
    void readmeExampleRuns() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start()) {
            String endpoint = server.endpoint();
            // --- README begins (endpoint substituted) ---
            try (TenureClient tenure = TenureClient.builder()
                            .endpoints(endpoint)
                            .sessionTtl(Duration.ofSeconds(10))
                            .build();
                    Session session = tenure.openSession();
                    Lease lease = session.acquire("orders", Duration.ofSeconds(5))) { // LOCK_HELD after 5 s
                lease.invalidated()
                        .thenAccept(loss -> System.err.println(
                                "stop: " + loss.map(String::valueOf).orElse("in doubt")));
                System.out.println("token " + lease.token() + ", previous tenure ended "
                        + lease.previousEnd().map(String::valueOf).orElse("never"));
                for (String order : List.of("o-1", "o-2", "o-3")) {
                    long token = lease.fence(Duration.ofMillis(500)); // current with >= 500 ms left, or it throws
                    tenure.kv()
                            .put("orders/cursor", order.getBytes(UTF_8), "orders", token); // a stale token is refused
                }
            } // the lease is released (compare-and-delete), then the session is closed
            // --- README ends ---
            try (TenureClient check = TenureClient.builder().endpoints(endpoint).build()) {
                assertThat(new String(
                                check.kv().get("orders/cursor").orElseThrow().value(), UTF_8))
                        .isEqualTo("o-3");
                assertThat(check.status("orders").holder()).isEmpty();
            }
        }
    }
}
