package dev.tenure.lab.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.testkit.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy's modes against a real line-echo server on loopback. */
class FaultProxyTest {
    private ServerSocket server;
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private FaultProxy proxy;

    @BeforeEach
    void start() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::serve, "echo");
        t.setDaemon(true);
        t.start();
        proxy = new FaultProxy("test", "127.0.0.1:" + server.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        server.close();
    }

    private void serve() {
        while (true) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> echo(s));
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void echo(Socket s) {
        try (s;
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                received.add(line);
                out.println("echo " + line);
            }
            received.add("<eof>");
        } catch (IOException e) {
            received.add("<reset>");
        }
    }

    private static final class Client implements AutoCloseable {
        final Socket socket = new Socket();
        final BufferedReader in;
        final PrintWriter out;

        Client(String endpoint) throws IOException {
            int colon = endpoint.lastIndexOf(':');
            socket.connect(new InetSocketAddress(
                    InetAddress.getByAddress(new byte[] {127, 0, 0, 1}),
                    Integer.parseInt(endpoint.substring(colon + 1))));
            socket.setSoTimeout(1000);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
        }

        String call(String line) throws IOException {
            out.println(line);
            String reply = in.readLine();
            if (reply == null) {
                throw new IOException("closed");
            }
            return reply;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private String serverGot() throws InterruptedException {
        return received.poll(2, TimeUnit.SECONDS);
    }

    @Test
    void passForwardsBothWays() throws Exception {
        try (Client c = new Client(proxy.endpoint())) {
            assertThat(c.call("hello")).isEqualTo("echo hello");
        }
        assertThat(serverGot()).isEqualTo("hello");
    }

    @Test
    void dropResponsesLetsTheRequestThroughButNotTheAnswer() throws Exception {
        try (Client c = new Client(proxy.endpoint())) {
            assertThat(c.call("one")).isEqualTo("echo one");
            proxy.mode(FaultMode.DROP_RESPONSES);
            assertThatThrownBy(() -> c.call("two")).isInstanceOf(SocketTimeoutException.class);
            assertThat(serverGot()).isEqualTo("one");
            assertThat(serverGot()).isEqualTo("two"); // it happened; the client cannot know
        }
    }

    @Test
    void dropRequestsIsTheOtherWay() throws Exception {
        try (Client c = new Client(proxy.endpoint())) {
            proxy.mode(FaultMode.DROP_REQUESTS);
            assertThatThrownBy(() -> c.call("lost")).isInstanceOf(SocketTimeoutException.class);
            assertThat(received.poll(300, TimeUnit.MILLISECONDS)).isNull();
        }
    }

    @Test
    void blackholeIsSilentEvenWhenTheClientGoesAway() throws Exception {
        Client c = new Client(proxy.endpoint());
        assertThat(c.call("before")).isEqualTo("echo before");
        assertThat(serverGot()).isEqualTo("before");
        proxy.mode(FaultMode.BLACKHOLE);
        assertThatThrownBy(() -> c.call("into the void")).isInstanceOf(SocketTimeoutException.class);
        c.close();
        // Neither the data nor the FIN reached the server: to it the client is just silent.
        assertThat(received.poll(500, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void delayHoldsEachChunkAndDeliversWhatWasInFlightAfterTheSenderDied() throws Exception {
        proxy.delay(Duration.ofMillis(600));
        Client c = new Client(proxy.endpoint());
        c.out.println("late");
        long sent = System.nanoTime();
        Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(5))
                .until("the proxy read the chunk from the client", () -> proxy.bytesUp() > 0);
        c.socket.setSoLinger(true, 0);
        c.close(); // the sender is gone (RST) with its write in flight
        assertThat(serverGot()).isEqualTo("late");
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(550));
        assertThat(serverGot()).isEqualTo("<eof>");
    }

    @Test
    void resetBreaksOpenConnectionsAndRefusesNewOnes() throws Exception {
        try (Client c = new Client(proxy.endpoint())) {
            assertThat(c.call("x")).isEqualTo("echo x");
            proxy.mode(FaultMode.RESET);
            assertThatThrownBy(() -> c.call("y")).isInstanceOf(IOException.class);
        }
        try (Client c = new Client(proxy.endpoint())) {
            assertThatThrownBy(() -> c.call("z")).isInstanceOf(IOException.class);
        }
        proxy.mode(FaultMode.PASS);
        try (Client c = new Client(proxy.endpoint())) {
            assertThat(c.call("again")).isEqualTo("echo again");
        }
    }
}
