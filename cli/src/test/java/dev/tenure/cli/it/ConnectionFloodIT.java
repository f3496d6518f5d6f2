package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.bench.load.ServerProbe;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.process.JavaCommand;
import dev.tenure.server.RawConnection;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Floods against a real node process: connections past connectionsMax, connections that do
 * nothing, and a client that sends calls and never reads their answers. The node refuses or
 * closes them, stays small, and serves a well-behaved client throughout.
 */
class ConnectionFloodIT {
    @TempDir
    Path data;

    @Test
    void aFloodPastConnectionsMaxIsRefusedWhileAConnectedClientKeepsAcquiring() throws Exception {
        int max = 200;
        try (ServerProcess server = new ServerProcess(data)
                        .withAdmin()
                        .withOptions("--connections-max", Integer.toString(max), "--connection-idle-timeout", "3s")
                        .start();
                TenureClient client =
                        TenureClient.builder().endpoints(server.endpoint()).build();
                Session session = client.openSession()) {
            long[] before = cycles(session, 200);
            List<RawConnection> held = new ArrayList<>();
            Flood flood = new Flood(server.port);
            long[] during;
            try {
                while (held.size() < 3 * max) {
                    held.add(RawConnection.idle(server.port));
                }
                assertThat(metric(server, "tenure_connections_open")).isEqualTo(max);
                flood.start();
                during = cycles(session, 200);
            } finally {
                flood.stop();
            }
            assertThat(flood.served).as("flood connections served").hasValueLessThan(5);
            assertThat(metric(server, "tenure_connections_refused_total"))
                    .as("the held connections past the limit, and the flood's")
                    .isGreaterThanOrEqualTo(2L * max + flood.attempts.get() - flood.served.get());

            // The idle ones are closed after the idle timeout, each with a GOAWAY; then there is
            // room for a new client.
            long served = 0;
            for (RawConnection c : held) {
                List<RawConnection.Frame> frames = c.untilClosed(30_000);
                if (!frames.isEmpty()) {
                    served++;
                    assertThat(frames)
                            .filteredOn(f -> f.type() == RawConnection.GOAWAY)
                            .isNotEmpty()
                            .allSatisfy(f -> assertThat(f.debugData()).isEqualTo("max_idle"));
                }
                c.close();
            }
            // All but the client's own (one, or a few while a replaced one lingers).
            assertThat(served).as("held connections the node served").isBetween(max - 5L, max - 1L);
            try (TenureClient late =
                            TenureClient.builder().endpoints(server.endpoint()).build();
                    Session lateSession = late.openSession()) {
                assertThat(cycles(lateSession, 1)).hasSize(1);
            }
            System.out.printf(
                    "ConnectionFloodIT: %d connections held at --connections-max %d, %d more refused at accept;"
                            + " acquire+release p50 %.2f ms / p99 %.2f ms before, %.2f / %.2f during the flood%n",
                    max,
                    max,
                    metric(server, "tenure_connections_refused_total"),
                    percentileMs(before, 50),
                    percentileMs(before, 99),
                    percentileMs(during, 50),
                    percentileMs(during, 99));
        }
    }

    /**
     * BENCHMARKS.md's figures: a node with the defaults and `bin/tenure`'s JVM holds
     * connectionsMax idle connections, and a client's acquire+release with and without a flood
     * (the held connections, and a thread opening more that are refused) in one run.
     */
    @Test
    void atTheDefaultLimitTheNodeHoldsItsIdleConnectionsAndServesItsClients() throws Exception {
        int max = dev.tenure.server.config.ConnectionLimits.CONNECTIONS_MAX;
        try (ServerProcess server = new ServerProcess(data)
                        .jvm(JavaCommand.NODE_JVM)
                        .withAdmin()
                        .start();
                TenureClient client =
                        TenureClient.builder().endpoints(server.endpoint()).build();
                Session session = client.openSession()) {
            cycles(session, 500); // warm-up
            long[] before = cycles(session, 1_000);
            long rssBefore = ServerProbe.rssBytes(server.pid());
            long heapBefore = ServerProbe.liveHeap(server.pid()).get("");
            List<RawConnection> held = new ArrayList<>();
            Flood flood = new Flood(server.port);
            try {
                // Connections until one is refused: the client's own are open too.
                long start = System.nanoTime();
                while (true) {
                    RawConnection c = RawConnection.idle(server.port);
                    if (c.next(30_000) == null) {
                        c.close();
                        break;
                    }
                    held.add(c);
                }
                double holdSeconds = (System.nanoTime() - start) / 1e9;
                assertThat(metric(server, "tenure_connections_open")).isEqualTo(max);
                assertThat(held.size()).isGreaterThan(max - 10);
                long rssHeld = ServerProbe.rssBytes(server.pid());
                long heapHeld = ServerProbe.liveHeap(server.pid()).get("");
                flood.start();
                long[] during = cycles(session, 1_000);
                flood.stop();
                long refused = metric(server, "tenure_connections_refused_total");
                assertThat(refused).isGreaterThanOrEqualTo(flood.attempts.get() - flood.served.get());
                System.out.printf(
                        "ConnectionFloodIT figures: %d connections open (%d idle ones opened in %.1f s); node RSS %d -> %d MiB,"
                                + " live heap %d -> %d MiB (%.1f KiB of heap per connection); %d refused at accept"
                                + " while a client did 1000 acquire+release: p50 %.2f -> %.2f ms (x%.2f), p99 %.2f ->"
                                + " %.2f ms (x%.2f)%n",
                        max,
                        held.size(),
                        holdSeconds,
                        rssBefore >> 20,
                        rssHeld >> 20,
                        heapBefore >> 20,
                        heapHeld >> 20,
                        (heapHeld - heapBefore) / 1024.0 / held.size(),
                        refused,
                        percentileMs(before, 50),
                        percentileMs(during, 50),
                        percentileMs(during, 50) / percentileMs(before, 50),
                        percentileMs(before, 99),
                        percentileMs(during, 99),
                        percentileMs(during, 99) / percentileMs(before, 99));
            } finally {
                flood.stop();
                for (RawConnection c : held) {
                    c.close();
                }
            }
        }
    }

    @Test
    void idleConnectionsAreClosedAndTheJavaClientCarriesOn() throws Exception {
        try (ServerProcess server = new ServerProcess(data)
                        .withAdmin()
                        .withOptions("--connection-idle-timeout", "1s")
                        .start();
                TenureClient client =
                        TenureClient.builder().endpoints(server.endpoint()).build()) {
            assertThat(client.serverStatus().health()).isEqualTo("ok");
            Await.atMost(Duration.ofSeconds(20))
                    .until("the client's idle connection closed", () -> metric(server, "tenure_connections_open") == 0);
            // The next call opens a new connection, as gRPC does after a GOAWAY: nothing to see.
            assertThat(client.serverStatus().health()).isEqualTo("ok");
            assertThat(metric(server, "tenure_connections_open")).isEqualTo(1);

            // A session's stream is a call: its connection is never idle.
            try (Session session = client.openSession();
                    Lease lease = session.acquire("idle", Duration.ofSeconds(5))) {
                Pause.of(Duration.ofSeconds(4));
                assertThat(lease.isValid()).isTrue();
                assertThat(session.state()).isEqualTo(Session.State.CONNECTED);
                assertThat(client.status("idle").holder()).isPresent();
                assertThat(metric(server, "tenure_connections_open")).isEqualTo(1);
            }
        }
    }

    @Test
    void aClientThatSendsCallsAndNeverReadsIsCutOffAndTheNodeStaysSmall() throws Exception {
        try (ServerProcess server = new ServerProcess(data).withAdmin().start();
                TenureClient client =
                        // A longer grace than the default: on this 2-core machine the flood's
                        // 4,000 reads of 64 KiB keep the node too busy to answer an echo within
                        // a third of 900 ms, and the client then replaces its connection and may
                        // lose its session (BENCHMARKS.md, 'Connection floods and clients that do
                        // not read'): an overload this test does not argue about.
                        TenureClient.builder()
                                .endpoints(server.endpoint())
                                .disconnectGrace(Duration.ofSeconds(3))
                                .build();
                Session session = client.openSession()) {
            Unread unread = Unread.flood(server, 4_000);
            try {
                long[] during;
                try {
                    during = cycles(session, 100);
                } catch (RuntimeException e) {
                    throw new AssertionError(String.join("\n", server.lines()), e);
                }
                Await.atMost(Duration.ofSeconds(60))
                        .until(
                                "the client that does not read was cut off",
                                () -> metric(server, "tenure_connections_slow_readers_total") == 1);
                Await.atMost(Duration.ofSeconds(10))
                        .until("its connection closed", () -> metric(server, "tenure_connections_open") == 1);
                long after = ServerProbe.liveHeap(server.pid()).get("");
                long peakRss = peakRssBytes(server.pid());
                System.out.printf(
                        "ConnectionFloodIT: a client sent %d calls of 64 KiB answers and read none: cut off within"
                                + " %.1f s; node RSS %d MiB before, peak %d MiB; live heap %d MiB before, %d MiB"
                                + " after; a reading client's acquire+release p50 %.2f ms, p99 %.2f ms meanwhile%n",
                        unread.calls,
                        unread.secondsSinceStart(),
                        unread.rssBefore >> 20,
                        peakRss >> 20,
                        unread.heapBefore >> 20,
                        after >> 20,
                        percentileMs(during, 50),
                        percentileMs(during, 99));
                assertThat(server.alive()).isTrue();
                assertThat(session.state()).isEqualTo(Session.State.CONNECTED);
                // 256 MB of answers were asked for: what the node grew by is the bound, not them.
                assertThat(peakRss - unread.rssBefore).isLessThan(160L << 20);
                assertThat(after - unread.heapBefore).isLessThan(32L << 20);
            } finally {
                unread.close();
            }
        }
    }

    @Test
    void withTheBoundsLiftedTheSameClientMakesTheNodeHoldWhatItAsked() throws Exception {
        try (ServerProcess server = new ServerProcess(data)
                .withAdmin()
                .withOptions("--unsent-bytes-max", "64GiB", "--node-unsent-bytes-max", "64GiB")
                .start()) {
            Unread unread = Unread.flood(server, 4_000);
            try {
                // Four times what the default bound lets one connection keep, by the node's own count.
                long held = Await.atMost(Duration.ofSeconds(60))
                        .failureDetails(() -> String.join("\n", server.lines()))
                        .until(
                                "the node holding 64 MiB of answers for the client",
                                () -> metric(server, "tenure_connections_unsent_bytes"),
                                bytes -> bytes > 64L << 20);
                double seconds = unread.secondsSinceStart();
                Pause.of(Duration.ofSeconds(2));
                System.out.printf(
                        "ConnectionFloodIT: with --unsent-bytes-max and --node-unsent-bytes-max lifted, the node held"
                                + " %d MiB of answers for the same client within %.1f s and %d MiB 2 s later;"
                                + " RSS %d MiB before, peak %d MiB%n",
                        held >> 20,
                        seconds,
                        metric(server, "tenure_connections_unsent_bytes") >> 20,
                        unread.rssBefore >> 20,
                        peakRssBytes(server.pid()) >> 20);
                assertThat(metric(server, "tenure_connections_slow_readers_total"))
                        .isZero();
            } finally {
                unread.close();
            }
        }
    }

    /** A client that sends KvGets of a 64 KiB value on a Calls stream and never reads an answer. */
    private static final class Unread {
        final ManagedChannel channel;
        final EventLoopGroup loop;
        final long rssBefore;
        final long heapBefore;
        final int calls;
        final long startNanos = System.nanoTime();
        private final Thread sender;

        private Unread(ManagedChannel channel, EventLoopGroup loop, long rssBefore, long heapBefore, int calls) {
            this.channel = channel;
            this.loop = loop;
            this.rssBefore = rssBefore;
            this.heapBefore = heapBefore;
            this.calls = calls;
            this.sender = new Thread(this::send, "unread-sender");
            sender.setDaemon(true);
        }

        /** Starts sending {@code calls} on a thread of their own, after the node's figures before. */
        static Unread flood(ServerProcess server, int calls) throws Exception {
            try (TenureClient writer =
                    TenureClient.builder().endpoints(server.endpoint()).build()) {
                writer.kv().put("unread", new byte[64 << 10]);
            }
            long heap = ServerProbe.liveHeap(server.pid()).get("");
            long rss = ServerProbe.rssBytes(server.pid());
            // Its own event loop: a flood of sends on the loops the reading client's channel
            // shares would hold up that client's reads in this very JVM.
            EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            ManagedChannel channel = NettyChannelBuilder.forTarget(server.endpoint())
                    .usePlaintext()
                    .eventLoopGroup(loop)
                    .channelType(NioSocketChannel.class)
                    .build();
            Unread unread = new Unread(channel, loop, rss, heap, calls);
            unread.sender.start();
            return unread;
        }

        private void send() {
            ClientCall<CallRequest, CallResponse> call =
                    channel.newCall(TenureGrpc.getCallsMethod(), CallOptions.DEFAULT);
            call.start(new ClientCall.Listener<>() {}, new Metadata()); // and never request()
            // In rounds of 200, 100 ms apart: all at once, most would wait in the log past the
            // node's request timeout and be answered by a short UNAVAILABLE instead of the value.
            try {
                for (int i = 1; i <= calls; i++) {
                    call.sendMessage(CallRequest.newBuilder()
                            .setId(i)
                            .setKvGet(KvGetRequest.newBuilder().setKey("unread"))
                            .build());
                    if (i % 200 == 0) {
                        Pause.of(Duration.ofMillis(100));
                    }
                }
            } catch (InterruptedException stopped) {
                // the test is over
            }
        }

        double secondsSinceStart() {
            return (System.nanoTime() - startNanos) / 1e9;
        }

        void close() throws InterruptedException {
            sender.interrupt();
            sender.join(10_000);
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
            var unused = loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }

    /**
     * Connections opened one after another as fast as one thread can, against a node at its limit:
     * each is refused, unless a connection closed meanwhile left room (then it is closed here).
     */
    private static final class Flood {
        final int port;
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong attempts = new AtomicLong();
        final AtomicLong served = new AtomicLong();
        private final Thread thread;

        Flood(int port) {
            this.port = port;
            this.thread = new Thread(this::run, "flood");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(10_000);
        }

        private void run() {
            while (running.get()) {
                try (RawConnection c = RawConnection.idle(port)) {
                    attempts.incrementAndGet();
                    if (c.next(10_000) != null) {
                        served.incrementAndGet();
                    }
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }
        }
    }

    /** {@code n} acquire+release cycles on one lock; each one's time in nanoseconds. */
    private static long[] cycles(Session session, int n) {
        long[] nanos = new long[n];
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            try (Lease lease = session.acquire("flood", Duration.ofSeconds(10))) {
                assertThat(lease.token()).isPositive();
            }
            nanos[i] = System.nanoTime() - start;
        }
        return nanos;
    }

    private static double percentileMs(long[] nanos, int percentile) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int index = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1e6;
    }

    /** The high-water mark of the process's resident memory (VmHWM), in bytes. */
    private static long peakRssBytes(long pid) throws IOException {
        for (String line : java.nio.file.Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmHWM in /proc/" + pid + "/status");
    }

    /** One unlabelled figure of the node's /metrics. */
    static long metric(ServerProcess server, String name) throws IOException, InterruptedException {
        String body = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return body.lines()
                .filter(l -> l.startsWith(name + " "))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + name + " in /metrics"));
    }
}
