package dev.tenure.bench.load;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.TenureGrpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Puts {@code count} values of {@code valueBytes} under new keys, {@code inFlight} at a time, to a
 * plaintext node, and prints how each ended: against a node whose KV is full (or a quota reached),
 * what a stream of puts that can only be refused costs the node's log (see BENCHMARKS.md,
 * 'Refused writes and the log').
 *
 * <pre>java -cp tenure.jar dev.tenure.bench.load.RefusedPuts HOST:PORT COUNT VALUE_BYTES IN_FLIGHT PREFIX</pre>
 */
public final class RefusedPuts {
    private RefusedPuts() {}

    public static void main(String[] args) throws InterruptedException {
        String[] hostPort = args[0].split(":", 0);
        int count = Integer.parseInt(args[1]);
        int valueBytes = Integer.parseInt(args[2]);
        int inFlight = Integer.parseInt(args[3]);
        String prefix = args[4];
        ManagedChannel channel = NettyChannelBuilder.forAddress(hostPort[0], Integer.parseInt(hostPort[1]))
                .usePlaintext()
                .maxInboundMessageSize(valueBytes + (1 << 20))
                .build();
        TenureGrpc.TenureStub stub = TenureGrpc.newStub(channel);
        ByteString value = ByteString.copyFrom(new byte[valueBytes]);
        Semaphore slots = new Semaphore(inFlight);
        CountDownLatch done = new CountDownLatch(count);
        Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            slots.acquire();
            KvPutRequest put =
                    KvPutRequest.newBuilder().setKey(prefix + i).setValue(value).build();
            stub.withDeadlineAfter(60, TimeUnit.SECONDS).kvPut(put, new StreamObserver<>() {
                @Override
                public void onNext(KvPutResponse r) {
                    count(r.getCode() == Code.CODE_OK ? "OK" : r.getCode() + ": " + head(r.getMessage()));
                }

                @Override
                public void onError(Throwable t) {
                    Status s = Status.fromThrowable(t);
                    count(s.getCode() + ": " + head(s.getDescription())
                            + (s.getCause() == null ? "" : " (" + s.getCause() + ")"));
                    end();
                }

                @Override
                public void onCompleted() {
                    end();
                }

                private void count(String outcome) {
                    outcomes.computeIfAbsent(outcome, o -> new AtomicLong()).incrementAndGet();
                }

                private void end() {
                    slots.release();
                    done.countDown();
                }
            });
        }
        done.await();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("%d puts of %d bytes in %d ms%n", count, valueBytes, ms);
        new TreeMap<>(outcomes).forEach((o, n) -> System.out.printf("  %6d %s%n", n.get(), o));
        channel.shutdownNow();
    }

    /** The limit a refusal names: its message up to the first ':' or '(' after it. */
    private static String head(String message) {
        if (message == null) {
            return "";
        }
        int cut = message.indexOf(')');
        return cut > 0 ? message.substring(0, cut + 1) : message;
    }
}
