package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.FutureCallback;
import com.google.common.util.concurrent.Futures;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.core.Limits;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

    @Test
    void aNodeOutOfFileDescriptorsServesAgainOnceTheyAreFree() throws Exception {
        int descriptors = 256;
        int flood = 400;
        try (ServerProcess server = new ServerProcess(data)
                .wrappedIn(List.of("prlimit", "--nofile=" + descriptors + ":" + descriptors, "--"))
                .withAdmin()
                .start()) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < flood; i++) {
                    sockets.add(new Socket("127.0.0.1", server.port));
                }
                // The fault landed: the node tried to accept past its limit.
                Await.atMost(Duration.ofSeconds(20))
                        .every(Duration.ofMillis(100))
                        .failureDetails(() -> String.join("\n", server.lines()))
                        .until(
                                "the node reports too many open files",
                                () -> server.lines().stream().anyMatch(l -> l.contains("Too many open files")));
            } finally {
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
            assertThat(health(server).statusCode()).isEqualTo(200);
            System.out.printf(
                    "NodeFaultsIT: %d connections against %d descriptors; served again %d ms after they closed;"
                            + " the node logged %d lines meanwhile%n",
                    flood, descriptors, recoveredMs, server.lines().size());
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

    private static HttpResponse<String> health(ServerProcess server) throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/health"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }
}
