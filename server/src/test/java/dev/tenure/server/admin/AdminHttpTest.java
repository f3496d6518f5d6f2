package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import dev.tenure.testkit.TimeScale;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The admin endpoint keeps answering {@code /health} while clients hold connections half-sent (a
 * slowloris), and closes those once their time is up. The JDK's server reads a request's line and
 * headers on the executor's thread that will serve it (its dispatcher thread only accepts and
 * waits for a first byte), so each half-sent request holds one thread until it is cut off.
 */
class AdminHttpTest {
    private static final ServerStatusResponse OK =
            ServerStatusResponse.newBuilder().setHealth("ok").build();
    private static final ProbeResult FRESH = new ProbeResult(OK, 0, 1_000);
    /** What a health probe may wait while fewer slow clients than threads hold connections. */
    /**
     * Half the time a half-sent request is allowed: a /health held up by one would wait for all
     * of it. Not a speed target (the printed figures are the measure); a loaded machine answers
     * in over a second now and then.
     */
    private static final Duration HEALTH_WAIT_MAX =
            TimeScale.scaled(Duration.ofSeconds(AdminHttp.REQUEST_SECONDS_MAX).dividedBy(2));

    @Test
    void twentyHalfSentRequestLinesDoNotHoldUpHealthAndAreCutOffAfterTheirTime() throws Exception {
        try (AdminHttp admin = AdminHttp.start("127.0.0.1", 0, () -> FRESH, () -> OK, () -> "");
                Slowloris slow = Slowloris.open(admin.port(), 20)) {
            // Probe throughout: while all twenty are open, and on past the moment they are cut off.
            List<Long> millis = new ArrayList<>();
            long end = System.nanoTime()
                    + Duration.ofSeconds(AdminHttp.REQUEST_SECONDS_MAX + 2).toNanos();
            boolean answeredWhileAllOpen = false;
            while (System.nanoTime() < end) {
                long start = System.nanoTime();
                assertThat(health(admin.port())).startsWith("HTTP/1.1 200");
                millis.add((System.nanoTime() - start) / 1_000_000);
                if (millis.size() == 1) {
                    answeredWhileAllOpen = slow.openCount() == 20;
                }
                Pause.forMillis(50); // a probe's interval
            }
            assertThat(answeredWhileAllOpen)
                    .as("the first /health came while every slow request was still open")
                    .isTrue();
            Collections.sort(millis);
            System.out.printf(
                    "AdminHttpTest: 20 half-sent requests: %d /health answers, p50 %d ms, max %d ms%n",
                    millis.size(), millis.get(millis.size() / 2), millis.get(millis.size() - 1));
            assertThat(millis.get(millis.size() - 1)).isLessThan(HEALTH_WAIT_MAX.toMillis());
            slow.awaitAllClosedByTheServer(Duration.ofSeconds(3L * AdminHttp.REQUEST_SECONDS_MAX));
        }
    }

    // The half-sent requests are held open for the body's length: it has no other use for them.
    @SuppressWarnings("try")
    @Test
    void moreHalfSentRequestsThanThreadsDelayHealthOnlyUntilTheyAreCutOff() throws Exception {
        try (AdminHttp admin = AdminHttp.start("127.0.0.1", 0, () -> FRESH, () -> OK, () -> "");
                Slowloris slow = Slowloris.open(admin.port(), AdminHttp.THREADS + 8)) {
            long start = System.nanoTime();
            String answer;
            try {
                answer = health(admin.port());
            } catch (SocketException reset) {
                // On a loaded machine the probe itself can wait past the request limit behind the
                // slow ones, and is cut off with them; a load balancer's next probe is then served.
                answer = health(admin.port());
            }
            assertThat(answer).startsWith("HTTP/1.1 200");
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.printf(
                    "AdminHttpTest: %d half-sent requests (%d threads): /health answered in %d ms%n",
                    AdminHttp.THREADS + 8, AdminHttp.THREADS, millis);
            // The request limit plus one turn of the JDK's 1 s timer that enforces it, and slack;
            // twice, for a probe cut off once.
            assertThat(millis)
                    .isLessThan(TimeScale.scaled(Duration.ofSeconds(2 * (AdminHttp.REQUEST_SECONDS_MAX + 3)))
                            .toMillis());
        }
    }

    /** GET /health on a connection of its own, as a probe sends it; the whole response. */
    private static String health(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
            s.setSoTimeout((int) TimeScale.scaled(Duration.ofSeconds(3L * AdminHttp.REQUEST_SECONDS_MAX))
                    .toMillis());
            s.getOutputStream()
                    .write("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** Connections that each send the start of a request line and never the rest. */
    private static final class Slowloris implements AutoCloseable {
        private final List<Socket> sockets = new ArrayList<>();

        static Slowloris open(int port, int count) throws IOException {
            Slowloris slow = new Slowloris();
            try {
                for (int i = 0; i < count; i++) {
                    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                    slow.sockets.add(s);
                    OutputStream out = s.getOutputStream();
                    out.write("GET /health HT".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                }
            } catch (IOException e) {
                slow.close();
                throw e;
            }
            return slow;
        }

        int openCount() {
            int open = 0;
            for (Socket s : sockets) {
                if (!closedByPeer(s)) {
                    open++;
                }
            }
            return open;
        }

        void awaitAllClosedByTheServer(Duration timeout) throws InterruptedException {
            Await.atMost(timeout)
                    .every(Duration.ofMillis(100))
                    .until("the server closes every half-sent request", () -> openCount() == 0);
        }

        private static boolean closedByPeer(Socket s) {
            try {
                s.setSoTimeout(20);
                InputStream in = s.getInputStream();
                return in.read() == -1;
            } catch (SocketTimeoutException stillOpen) {
                return false;
            } catch (IOException reset) {
                return true;
            }
        }

        @Override
        public void close() throws IOException {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
