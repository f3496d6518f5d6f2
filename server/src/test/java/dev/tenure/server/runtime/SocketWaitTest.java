package dev.tenure.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.cluster.AeronContexts;
import dev.tenure.testkit.Pause;
import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wait in the socket selector ends when a datagram arrives or a hand-off wakes it, and lasts
 * its timeout otherwise. Every wait here is 30 s long, so one that ended within seconds was ended
 * by what the test sent, not by its timeout.
 */
@Timeout(60)
class SocketWaitTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(30);
    private static final long SOON = TimeUnit.SECONDS.toNanos(10);

    private Selector selector;
    private DatagramChannel socket;

    @BeforeEach
    void openSocket() throws IOException {
        selector = Selector.open();
        socket = DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        socket.configureBlocking(false);
        socket.register(selector, SelectionKey.OP_READ);
    }

    @AfterEach
    void closeSocket() {
        CloseHelper.quietCloseAll(socket, selector);
    }

    /** Sends one datagram to {@code to} after 200 ms, from another thread. */
    private static CompletableFuture<Void> sendLater(InetSocketAddress to) {
        return CompletableFuture.runAsync(() -> {
            try (DatagramChannel sender = DatagramChannel.open()) {
                Pause.forMillis(200); // the wait has begun by then
                sender.send(ByteBuffer.wrap(new byte[] {1, 2, 3}), to);
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static long timedAwait(SocketWait wait, long nanos) {
        long start = System.nanoTime();
        wait.await(nanos);
        return System.nanoTime() - start;
    }

    @Test
    void aDatagramEndsTheWaitAndIsLeftToRead() throws IOException {
        SocketWait wait = new SocketWait(selector);
        CompletableFuture<Void> sent = sendLater((InetSocketAddress) socket.getLocalAddress());
        assertThat(timedAwait(wait, LONG)).isLessThan(SOON);
        sent.join();
        // The wait processed nothing: the datagram is still there for the driver's own poll.
        assertThat(socket.receive(ByteBuffer.allocate(16))).isNotNull();
    }

    @Test
    void aWakeEndsTheWait() {
        SocketWait wait = new SocketWait(selector);
        CompletableFuture<Void> woken = CompletableFuture.runAsync(() -> {
            try {
                Pause.forMillis(200); // the wait has begun by then
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            wait.wake();
        });
        assertThat(timedAwait(wait, LONG)).isLessThan(SOON);
        woken.join();
    }

    @Test
    void aWakeWhileRunningEndsTheNextWaitOnly() {
        SocketWait wait = new SocketWait(selector);
        wait.wake();
        assertThat(timedAwait(wait, LONG)).isLessThan(SOON);
        // Used up: the next wait lasts its timeout (300 ms, whole milliseconds).
        assertThat(timedAwait(wait, TimeUnit.MILLISECONDS.toNanos(300)))
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(250));
    }

    @Test
    void aWaitShorterThanAMillisecondStillWaitsAndEnds() {
        SocketWait wait = new SocketWait(selector);
        // A zero timeout would mean "forever" to the selector.
        assertThat(timedAwait(wait, 1_000)).isLessThan(SOON);
    }

    @Test
    void waitsOnTheSocketsOfTheDriversSubscriptions(@TempDir Path dir) throws IOException {
        int port;
        try (DatagramChannel probe =
                DatagramChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        MediaDriver driver = MediaDriver.launch(
                AeronContexts.driverContext(dir.resolve("aeron").toString(), Throwable::printStackTrace)
                        .threadingMode(ThreadingMode.INVOKER));
        try (driver;
                Aeron aeron = Aeron.connect(new Aeron.Context()
                        .aeronDirectoryName(driver.aeronDirectoryName())
                        .driverAgentInvoker(driver.sharedAgentInvoker())
                        .useConductorAgentInvoker(true))) {
            // Adding it runs the driver (through the invoker) until the receiver opened the socket.
            aeron.addSubscription("aeron:udp?endpoint=127.0.0.1:" + port, 1);
            SocketWait wait = SocketWait.of(driver);
            CompletableFuture<Void> sent = sendLater(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            assertThat(timedAwait(wait, LONG)).isLessThan(SOON);
            sent.join();
        }
    }
}
