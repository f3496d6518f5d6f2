package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.testkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The admin endpoint keeps answering {@code /health} while clients hold connections half-sent,
 * and closes those once their time is up.
 */
class AdminHttpTest {
    private static final ServerStatusResponse OK =
            ServerStatusResponse.newBuilder().setHealth("ok").build();

    @Test
    void slowClientsWithPartialRequestsDoNotHoldUpHealthAndAreCutOff() throws Exception {
        try (AdminHttp admin = AdminHttp.start("127.0.0.1", 0, () -> OK, () -> "")) {
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    Socket s = new Socket("127.0.0.1", admin.port());
                    OutputStream out = s.getOutputStream();
                    out.write("GET /health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush(); // and never the blank line that ends the request
                    slow.add(s);
                }
                HttpClient http = HttpClient.newBuilder()
                        .connectTimeout(Duration.ofSeconds(5))
                        .build();
                long start = System.nanoTime();
                HttpResponse<String> health = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + "/health"))
                                .timeout(Duration.ofSeconds(3L * AdminHttp.REQUEST_SECONDS_MAX))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(health.statusCode()).isEqualTo(200);
                assertThat(health.body()).contains("\"health\":\"ok\"");
                // Answered while they were all still open: not because the node had cut them off.
                for (Socket s : slow) {
                    assertThat(closed(s, s.getInputStream()))
                            .as("a partial request still open")
                            .isFalse();
                }
                System.out.printf(
                        "AdminHttpTest: /health answered in %d ms with %d partial requests open%n",
                        (System.nanoTime() - start) / 1_000_000, slow.size());
                // Each half-sent request is closed by the server once its time is up.
                for (Socket s : slow) {
                    InputStream in = s.getInputStream();
                    Await.atMost(Duration.ofSeconds(4L * AdminHttp.REQUEST_SECONDS_MAX))
                            .every(Duration.ofMillis(100))
                            .until("the server closes a partial request", () -> closed(s, in));
                }
            } finally {
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    private static boolean closed(Socket s, InputStream in) {
        try {
            s.setSoTimeout(200);
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
