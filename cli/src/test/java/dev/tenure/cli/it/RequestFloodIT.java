package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.process.JavaCommand;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One client without credentials sends 8,000 KvPuts of 64 KiB at once (16 connections x 500)
 * to a real node with `bin/tenure`'s heap, while a session with a 5 s TTL keeps alive on its own
 * connection. The node holds no more of the puts than its request budget, refuses the rest
 * RESOURCE_EXHAUSTED naming the limit, stays up and healthy, and the session's keepalives are
 * acknowledged throughout. Prints the figures BENCHMARKS.md gives: peak resident set, the
 * outcomes, and the session's longest gap between acknowledgements.
 */
class RequestFloodIT {
    private static final int CONNECTIONS = 16;
    private static final int PER_CONNECTION = 500;
    private static final int VALUE_BYTES = 64 << 10;
    private static final long TTL_MS = 5_000;

    @TempDir
    Path data;

    @Test
    void eightThousandLargePutsAtOnceAreHeldWithinTheBudgetOrRefusedByNameAndASessionsKeepalivesGoOn()
            throws Exception {
        try (ServerProcess server =
                new ServerProcess(data).jvm(JavaCommand.NODE_JVM).withAdmin().start()) {
            long rssBefore = peakRssBytes(server.pid());
            Holder holder = new Holder(server.endpoint());
            String outcomes;
            long millis;
            try {
                holder.open();
                long start = System.nanoTime();
                outcomes = Flood.run(server.endpoint());
                millis = (System.nanoTime() - start) / 1_000_000;
                holder.keepAliveFor(Duration.ofSeconds(2)); // past the flood, so its last gap is measured
            } finally {
                holder.close();
            }
            long peak = peakRssBytes(server.pid());
            System.out.printf(
                    "RequestFloodIT: %d puts of %d KiB from %d connections in %d ms: %s; peak resident set %d MiB"
                            + " (%d MiB at start); a %d ms-TTL session's longest gap between keepalive acks %d ms"
                            + " (%d acks, lost: %s)%n",
                    CONNECTIONS * PER_CONNECTION,
                    VALUE_BYTES >> 10,
                    CONNECTIONS,
                    millis,
                    outcomes,
                    peak >> 20,
                    rssBefore >> 20,
                    TTL_MS,
                    holder.longestGapMs(),
                    holder.acks.get(),
                    holder.failure);
            assertThat(server.alive()).as("the node is up").isTrue();
            assertThat(health(server)).as("/health").isEqualTo(200);
            assertThat(outcomes.lines().filter(l -> l.startsWith("outcome ")))
                    .as("every put was taken, refused by the state machine's limits, or refused for the request budget")
                    .isNotEmpty()
                    .allSatisfy(line -> assertThat(line)
                            .matches("outcome (OK.*|RESOURCE_EXHAUSTED: (nodeRequestBytesMax|requestBytesMax):) \\d+"));
            assertThat(holder.failure).as("the session's stream").isNull();
            assertThat(holder.longestGapMs())
                    .as("longest gap between keepalive acks, ms")
                    .isLessThan(TTL_MS);
        }
    }

    /**
     * The flood, in a JVM of its own: 8,000 puts of 64 KiB buffered at once take 512 MiB of the
     * sender's direct memory, more than the test's JVM has.
     */
    static final class Flood {
        /** Runs {@link #main} in a child JVM against {@code endpoint}; what it printed. */
        static String run(String endpoint) throws Exception {
            Process p = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-Xmx1g",
                            "-XX:MaxDirectMemorySize=2g",
                            "-cp",
                            System.getProperty("java.class.path"),
                            Flood.class.getName(),
                            endpoint)
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as("the flood's JVM: %s", out).isZero();
            return out;
        }

        public static void main(String[] args) throws Exception {
            Map<String, Integer> outcomes = new ConcurrentHashMap<>();
            Map<String, String> examples = new ConcurrentHashMap<>();
            List<ManagedChannel> channels = new ArrayList<>();
            byte[] value = new byte[VALUE_BYTES];
            new Random(1).nextBytes(value);
            ByteString bytes = ByteString.copyFrom(value);
            CountDownLatch done = new CountDownLatch(CONNECTIONS * PER_CONNECTION);
            for (int c = 0; c < CONNECTIONS; c++) {
                ManagedChannel channel =
                        NettyChannelBuilder.forTarget(args[0]).usePlaintext().build();
                channels.add(channel);
                TenureGrpc.TenureStub stub = TenureGrpc.newStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS);
                for (int i = 0; i < PER_CONNECTION; i++) {
                    stub.kvPut(
                            KvPutRequest.newBuilder()
                                    .setKey("flood/" + c + "/" + i)
                                    .setValue(bytes)
                                    .build(),
                            new StreamObserver<>() {
                                @Override
                                public void onNext(KvPutResponse r) {
                                    outcomes.merge(
                                            r.getCode() == Code.CODE_OK ? "OK" : "OK, " + r.getCode(), 1, Integer::sum);
                                }

                                @Override
                                public void onError(Throwable t) {
                                    Status s = Status.fromThrowable(t);
                                    String kind = s.getCode() + ": " + firstWord(s.getDescription());
                                    outcomes.merge(kind, 1, Integer::sum);
                                    examples.putIfAbsent(kind, String.valueOf(s.getDescription()));
                                    done.countDown();
                                }

                                @Override
                                public void onCompleted() {
                                    done.countDown();
                                }
                            });
                }
            }
            boolean all = done.await(3, TimeUnit.MINUTES);
            for (Map.Entry<String, Integer> e : new TreeMap<>(outcomes).entrySet()) {
                System.out.println("outcome " + e.getKey() + " " + e.getValue());
            }
            for (String e : examples.values()) {
                System.out.println("example " + e);
            }
            System.out.println("all answered: " + all);
            for (ManagedChannel c : channels) {
                c.shutdownNow();
            }
            System.exit(all ? 0 : 1);
        }
    }

    private static String firstWord(String description) {
        return description == null ? "" : description.split(" ", -1)[0];
    }

    /** A session on its own connection that sends a keepalive every 250 ms and times the acks. */
    private static final class Holder implements AutoCloseable {
        final ManagedChannel channel;
        final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
        final AtomicLong acks = new AtomicLong();
        final AtomicLong lastAckNanos = new AtomicLong();
        final AtomicLong longestGapNanos = new AtomicLong();
        final CompletableFuture<Long> opened = new CompletableFuture<>();
        volatile Throwable failure;
        private volatile boolean closing;
        StreamObserver<AttachRequest> out;
        long seq;

        Holder(String endpoint) {
            channel = NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
        }

        void open() throws Exception {
            out = TenureGrpc.newStub(channel).attach(new StreamObserver<>() {
                @Override
                public void onNext(AttachResponse r) {
                    if (r.hasOpened()) {
                        lastAckNanos.set(System.nanoTime());
                        opened.complete(r.getOpened().getSessionId());
                    } else if (r.hasAck()) {
                        long now = System.nanoTime();
                        long gap = now - lastAckNanos.getAndSet(now);
                        longestGapNanos.accumulateAndGet(gap, Math::max);
                        acks.incrementAndGet();
                    }
                }

                @Override
                public void onError(Throwable t) {
                    if (!closing) {
                        failure = t;
                    }
                }

                @Override
                public void onCompleted() {}
            });
            out.onNext(AttachRequest.newBuilder()
                    .setOpen(AttachRequest.Open.newBuilder().setTtlMs(TTL_MS).setClientName("holder"))
                    .build());
            opened.get(30, TimeUnit.SECONDS);
            var unused = ticks.scheduleAtFixedRate(this::keepAlive, 250, 250, TimeUnit.MILLISECONDS);
        }

        private synchronized void keepAlive() {
            out.onNext(AttachRequest.newBuilder()
                    .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(++seq))
                    .build());
        }

        /**
         * Keeps the session for {@code d}, then until an ack that came after the start of {@code
         * d}, so that the gap before the last ack is measured too; a failed stream ends the wait
         * (the test names it).
         */
        void keepAliveFor(Duration d) throws InterruptedException {
            long acksBefore = acks.get();
            Pause.of(d); // the keepalives go on through this window, which the gaps measure
            Await.atMost(Duration.ofMillis(TTL_MS * 2))
                    .until("a keepalive ack after the flood", () -> failure != null || acks.get() != acksBefore);
        }

        long longestGapMs() {
            return longestGapNanos.get() / 1_000_000;
        }

        @Override
        public void close() {
            closing = true; // the stream's end from here on is the test's doing
            ticks.shutdownNow();
            channel.shutdownNow();
        }
    }

    private static int health(ServerProcess server) throws IOException, InterruptedException {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/health"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    /** The high-water mark of the process's resident memory (VmHWM), in bytes. */
    private static long peakRssBytes(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IOException("no VmHWM in /proc/" + pid + "/status");
    }
}
