package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.core.Limits;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node meets faults of its own, as real processes: when it can no longer serve (out of memory,
 * its cluster member stopped) it ends with the documented status and one line, so a supervisor
 * restarts it; a flood that runs it out of file descriptors it survives, and serves again once
 * they are free.
 */
class NodeFaultsIT {
    @TempDir
    Path data;

    @Test
    void aNodeThatRunsOutOfMemoryEndsWithStatus138AndOneLine() throws Exception {
        // Without the node's defences against it: limits that hold far more than a 64 MiB heap
        // (a node refuses to start with them; --no-heap-check starts it anyway), and no heap guard
        // to refuse the writes that fill it (-Dtenure.heapGuard=false).
        List<String> smallHeap =
                List.of("-XX:+UseSerialGC", "-Xmx64m", "-XX:TieredStopAtLevel=1", "-Dtenure.heapGuard=false");
        try (ServerProcess server = new ServerProcess(data)
                .jvm(smallHeap)
                .withOptions("--no-heap-check", "--limit", "kvBytesMax=8GiB")
                .start()) {
            ManagedChannel channel = channel(server);
            // The largest value the limits allow, under keys the limits allow far more of than a
            // 64 MiB heap holds: the public API alone runs the node out of memory.
            ByteString value = ByteString.copyFrom(new byte[Limits.defaults().valueBytesMax()]);
            Semaphore inFlight = new Semaphore(16);
            AtomicLong acknowledged = new AtomicLong();
            AtomicLong lastAckNanos = new AtomicLong(System.nanoTime());
            int sent = 0;
            while (server.alive() && sent < 100_000) {
                if (!inFlight.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    continue;
                }
                KvPutRequest put = KvPutRequest.newBuilder()
                        .setKey("oom/" + sent++)
                        .setValue(value)
                        .build();
                Futures.addCallback(
                        TenureGrpc.newFutureStub(channel)
                                .withDeadlineAfter(30, TimeUnit.SECONDS)
                                .kvPut(put),
                        new FutureCallback<KvPutResponse>() {
                            @Override
                            public void onSuccess(KvPutResponse r) {
                                acknowledged.incrementAndGet();
                                lastAckNanos.set(System.nanoTime());
                                inFlight.release();
                            }

                            @Override
                            public void onFailure(Throwable t) {
                                inFlight.release();
                            }
                        },
                        MoreExecutors.directExecutor());
            }
            int status = server.awaitExit(Duration.ofSeconds(60));
            long afterLastAckMs = (System.nanoTime() - lastAckNanos.get()) / 1_000_000;
            channel.shutdownNow();
            System.out.printf(
                    "NodeFaultsIT: %d puts of 64 KiB acknowledged (%d sent) before the node ran out of memory;"
                            + " exit %d observed %d ms after the last acknowledgement%n",
                    acknowledged.get(), sent, status, afterLastAckMs);
            assertThat(status).as(server.lines().toString()).isEqualTo(138);
            assertThat(server.lines()).contains("out: # java.lang.OutOfMemoryError: Java heap space");
            assertThat(fatalLines(server))
                    .containsExactly("err: tenure: fatal: out of memory (exit 138): the JVM reported an"
                            + " OutOfMemoryError, naming the pool on stdout, by SIGUSR1");
        }
    }

    @Test
    void aClusterToolAbortEndsTheNodeWithStatus11() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start()) {
            // An operator's ClusterTool stops the consensus module and service: nothing in the
            // process can start them again, so the process must end for its supervisor to.
            try (Processes.Running tool = new Processes.Running(
                    Processes.worker(
                            "io.aeron.cluster.ClusterTool",
                            List.of(data.resolve("cluster").toString(), "abort")),
                    Map.of())) {
                assertThat(tool.waitFor(Duration.ofSeconds(60)))
                        .as(tool.output())
                        .isZero();
            }
            long start = System.nanoTime();
            int status = server.awaitExit(Duration.ofSeconds(30));
            System.out.printf(
                    "NodeFaultsIT: the node exited %d, %d ms after ClusterTool's abort returned%n",
                    status, (System.nanoTime() - start) / 1_000_000);
            assertThat(status).as(server.lines().toString()).isEqualTo(11);
            assertThat(fatalLines(server))
                    .singleElement()
                    .asString()
                    .startsWith(
                            "err: tenure: fatal: cluster member stopped (exit 11): the cluster terminated on thread")
                    .endsWith(", as asked (ClusterTool shutdown or abort)");
        }
    }

    /**
     * The data directory's file system fills. Through Tenure's own writes it cannot: KV writes are
     * refused (RESOURCE_EXHAUSTED, naming the free space) while the node stays up, serves locks and
     * restarts with every acknowledged write. Filled by another process, the node's next appends
     * fail and it ends with status 15 and a line that says the disk is full, instead of serving
     * nothing.
     */
    // The mount is held for the node to write on, and unmounted after: the body never names it.
    @SuppressWarnings("try")
    @Test
    void aFillingDiskRefusesWritesAndAFullOneEndsTheNodeWithStatus15() throws Exception {
        Path mount = Files.createDirectories(data.resolve("mount"));
        try (TmpfsMount disk = TmpfsMount.on(mount, "size=256m")) {
            ServerProcess server = new ServerProcess(mount.resolve("data")).onASmallDisk();
            try (server) {
                server.start();
                Map<String, Integer> acked = new HashMap<>();
                String refused = null;
                int puts = 0;
                try (TenureClient tenure = client(server)) {
                    byte[] value = new byte[60_000];
                    for (; puts < 10_000 && refused == null; puts++) {
                        String key = "fill-" + (puts % 500);
                        ByteBuffer.wrap(value).putInt(puts);
                        try {
                            tenure.kv().put(key, value);
                            acked.put(key, puts);
                        } catch (TenureException e) {
                            refused = e.getMessage();
                        }
                    }
                    System.out.printf(
                            "NodeFaultsIT: %d puts of 60,000 bytes acknowledged, then: %s%n", puts - 1, refused);
                    assertThat(refused).contains("disk: the data directory").contains("KV writes and checkpoints");
                    try (Session session = tenure.openSession();
                            Lease lease = session.acquire("on-a-nearly-full-disk")) {
                        assertThat(lease.token()).isPositive();
                    }
                }
                server.signal("TERM");
                server.awaitExit(Duration.ofSeconds(30));
                server.start();
                try (TenureClient tenure = client(server)) {
                    for (Map.Entry<String, Integer> e : acked.entrySet()) {
                        int found = ByteBuffer.wrap(tenure.kv()
                                        .get(e.getKey())
                                        .orElseThrow()
                                        .value())
                                .getInt();
                        assertThat(found).as(e.getKey()).isGreaterThanOrEqualTo(e.getValue());
                    }

                    // Another process takes the rest: the node's next appends find no room.
                    TmpfsMount.fillUp(mount.resolve("other-process.bin"));
                    long filled = System.nanoTime();
                    try (Session session = tenure.openSession()) {
                        for (int i = 0; i < 100_000 && server.alive(); i++) {
                            try (Lease lease = session.acquire("while-full")) {
                                lease.token();
                            }
                        }
                    } catch (TenureException expected) {
                        // The node ended under the loop.
                    }
                    int status = server.awaitExit(Duration.ofSeconds(60));
                    System.out.printf(
                            "NodeFaultsIT: with the disk filled by another process, exit %d %d ms later%n",
                            status, (System.nanoTime() - filled) / 1_000_000);
                    assertThat(status).as(server.lines().toString()).isEqualTo(15);
                    assertThat(fatalLines(server))
                            .singleElement()
                            .asString()
                            .startsWith("err: tenure: fatal: data directory full (exit 15):")
                            .contains("bytes free on its file system (tenure-test)");
                }
            }
        }
    }

    /**
     * A lone node stopped for longer than Aeron's service timeout (10 s) cannot go on: Aeron
     * closed its clients while it was frozen. It ends with status 11 and a line that says it was
     * paused, and a restart on the same data serves every acknowledged write.
     */
    @Test
    void aNodePausedPastTheServiceTimeoutEndsWithStatus11AndARestartServesItsData() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start()) {
            try (TenureClient tenure = client(server)) {
                tenure.kv().put("before-the-pause", "kept".getBytes(UTF_8));
            }
            server.signal("STOP");
            Pause.of(Duration.ofSeconds(16));
            server.signal("CONT");
            long resumed = System.nanoTime();
            int status = server.awaitExit(Duration.ofSeconds(60));
            System.out.printf(
                    "NodeFaultsIT: a lone node paused 16 s exited %d, %d ms after it resumed%n",
                    status, (System.nanoTime() - resumed) / 1_000_000);
            assertThat(status).as(server.lines().toString()).isEqualTo(11);
            assertThat(fatalLines(server))
                    .singleElement()
                    .asString()
                    .startsWith("err: tenure: fatal: cluster member stopped (exit 11): Aeron agent on thread")
                    .contains("after the process was paused past Aeron's service timeout");

            server.start();
            try (TenureClient tenure = client(server)) {
                assertThat(tenure.kv().get("before-the-pause").orElseThrow().value())
                        .isEqualTo("kept".getBytes(UTF_8));
            }
        }
    }

    /**
     * A flood of connections runs the node out of descriptors: while it cannot take a new
     * connection or open a file, its health says so ("not serving", to a client connected before); once they
     * are free it serves new clients and /health is 200 again.
     */
    @Test
    void aNodeOutOfFileDescriptorsSaysSoAndServesAgainOnceTheyAreFree() throws Exception {
        int descriptors = 256;
        int flood = 400;
        try (ServerProcess server = new ServerProcess(data)
                .wrappedIn(List.of("prlimit", "--nofile=" + descriptors + ":" + descriptors, "--"))
                .withAdmin()
                .start()) {
            // A client connected now: the node will have no descriptor left for a new one.
            ManagedChannel connected = channel(server);
            var status = TenureGrpc.newBlockingStub(connected);
            assertThat(status.serverStatus(ServerStatusRequest.getDefaultInstance())
                            .getHealth())
                    .isEqualTo("ok");
            List<Socket> sockets = new ArrayList<>();
            long flooded;
            try {
                for (int i = 0; i < flood; i++) {
                    sockets.add(new Socket(InetAddress.getLoopbackAddress(), server.port));
                }
                flooded = System.nanoTime();
                // The fault landed: the node tried to accept past its limit.
                Await.atMost(Duration.ofSeconds(20))
                        .every(Duration.ofMillis(100))
                        .failureDetails(() -> String.join("\n", server.lines()))
                        .until(
                                "the node reports too many open files",
                                () -> server.lines().stream().anyMatch(l -> l.contains("Too many open files")));
                var down = Await.atMost(Duration.ofSeconds(30))
                        .every(Duration.ofMillis(250))
                        .failureDetails(() -> String.join("\n", server.lines()))
                        .until(
                                "the node's health names its port",
                                () -> status.withDeadlineAfter(10, TimeUnit.SECONDS)
                                        .serverStatus(ServerStatusRequest.getDefaultInstance()),
                                s -> s.getHealth().equals("not serving"));
                System.out.printf(
                        "NodeFaultsIT: health '%s' %d ms into the flood: %s%n",
                        down.getHealth(), (System.nanoTime() - flooded) / 1_000_000, down.getHealthDetail());
            } finally {
                connected.shutdownNow();
                for (Socket s : sockets) {
                    s.close();
                }
            }
            long freed = System.nanoTime();
            Await.atMost(Duration.ofSeconds(30))
                    .every(Duration.ofMillis(200))
                    .failureDetails(() -> String.join("\n", server.lines()))
                    .until("a new client is served", () -> statusOnANewConnection(server));
            long recoveredMs = (System.nanoTime() - freed) / 1_000_000;
            assertThat(server.alive()).isTrue();
            Await.atMost(Duration.ofSeconds(20))
                    .every(Duration.ofMillis(200))
                    .until(
                            "/health is 200 again",
                            () -> health(HttpClient.newHttpClient(), server).statusCode() == 200);
            System.out.printf(
                    "NodeFaultsIT: %d connections against %d descriptors; served again %d ms after they closed,"
                            + " healthy %d ms after; the node logged %d lines meanwhile%n",
                    flood,
                    descriptors,
                    recoveredMs,
                    (System.nanoTime() - freed) / 1_000_000,
                    server.lines().size());
        }
    }

    /**
     * The lines that begin {@code tenure: fatal:} on stderr. (Out of memory, the JVM also prints
     * its hook's command on stdout, in lines that begin {@code #}, after the pool it ran out of.)
     */
    private static List<String> fatalLines(ServerProcess server) {
        return server.lines().stream()
                .filter(l -> l.startsWith("err: tenure: fatal:"))
                .toList();
    }

    private static TenureClient client(ServerProcess server) {
        return TenureClient.builder().endpoints(server.endpoint()).build();
    }

    private static ManagedChannel channel(ServerProcess server) {
        return NettyChannelBuilder.forTarget(server.endpoint()).usePlaintext().build();
    }

    private static boolean statusOnANewConnection(ServerProcess server) {
        ManagedChannel channel = channel(server);
        try {
            return "ok"
                    .equals(TenureGrpc.newBlockingStub(channel)
                            .withDeadlineAfter(2, TimeUnit.SECONDS)
                            .serverStatus(ServerStatusRequest.getDefaultInstance())
                            .getHealth());
        } catch (StatusRuntimeException notYet) {
            return false;
        } finally {
            channel.shutdownNow();
        }
    }

    private static HttpResponse<String> health(HttpClient client, ServerProcess server)
            throws IOException, InterruptedException {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/health"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
