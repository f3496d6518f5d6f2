package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.CallFrames;
import dev.tenure.server.RawConnection;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request messages that do not parse, sent to a real server process as raw bytes for real
 * methods: each is answered INVALID_ARGUMENT (gRPC alone answers UNKNOWN and logs a stack trace
 * per request), the node goes on serving, and its log stays a few lines long.
 */
class MalformedRequestIT {
    private static final int BAD_REQUESTS = 1_000;

    @TempDir
    Path data;

    @Test
    void malformedRequestsAreInvalidArgumentAndTheNodeServesOnWithAQuietLog() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start()) {
            ManagedChannel channel = NettyChannelBuilder.forTarget(server.endpoint())
                    .usePlaintext()
                    .build();
            try {
                int linesBefore = server.lines().size();
                byte[] valid = AcquireRequest.newBuilder()
                        .setSessionId(1)
                        .setRequestId(1)
                        .setLock("xy")
                        .build()
                        .toByteArray();
                byte[] notUtf8 = replace(valid, "xy".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xC3, 0x28});
                byte[] cutShort = Arrays.copyOf(valid, valid.length - 1);
                // Three bytes: a length-delimited field 1 whose length never ends.
                byte[] threeBytes = {0x0A, (byte) 0xFF, (byte) 0xFF};

                assertThat(acquire(channel, notUtf8))
                        .satisfies(s -> assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                        .extracting(Status::getDescription)
                        .asString()
                        .startsWith("malformed Acquire request: ")
                        .contains("invalid UTF-8");
                assertThat(acquire(channel, cutShort))
                        .satisfies(s -> assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT))
                        .extracting(Status::getDescription)
                        .asString()
                        .contains("truncated");
                assertThat(acquire(channel, threeBytes).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(attachWithFirstFrame(channel, threeBytes).getCode())
                        .as("a stream whose frame does not parse")
                        .isEqualTo(Status.Code.INVALID_ARGUMENT);

                List<byte[]> kinds = List.of(notUtf8, cutShort, threeBytes);
                long start = System.nanoTime();
                for (int i = 0; i < BAD_REQUESTS; i++) {
                    assertThat(acquire(channel, kinds.get(i % kinds.size())).getCode())
                            .isEqualTo(Status.Code.INVALID_ARGUMENT);
                }
                long millis = (System.nanoTime() - start) / 1_000_000;

                assertThat(TenureGrpc.newBlockingStub(channel)
                                .withDeadlineAfter(30, TimeUnit.SECONDS)
                                .serverStatus(ServerStatusRequest.getDefaultInstance())
                                .getHealth())
                        .as("a good request after the bad ones")
                        .isEqualTo("ok");
                List<String> logged =
                        server.lines().subList(linesBefore, server.lines().size());
                System.out.printf(
                        "MalformedRequestIT: %d malformed requests in %d ms, all INVALID_ARGUMENT; the node logged"
                                + " %d line(s), %d bytes:%n%s%n",
                        BAD_REQUESTS + 4,
                        millis,
                        logged.size(),
                        logged.stream().mapToInt(String::length).sum(),
                        String.join("\n", logged));
                // At most one line per 10 s: this run takes a few seconds, so one or two.
                assertThat(logged)
                        .isNotEmpty()
                        .hasSizeLessThanOrEqualTo(2)
                        .allSatisfy(line ->
                                assertThat(line).startsWith("err: tenure: malformed request to tenure.v1.Tenure/"));
            } finally {
                channel.shutdownNow();
            }
        }
    }

    /**
     * BENCHMARKS.md's figure: 1,000 requests whose gRPC length prefix claims 2 GiB (5 body bytes
     * each), over 5 connections. gRPC's deframer logs each with a stack trace (4.29 MB for 1,000
     * before); the node lets one record through per 10 s.
     */
    @Test
    void aThousandRequestsClaimingTwoGibibytesEachAreAnsweredAndCostTheLogAFewLines() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start()) {
            int linesBefore = server.lines().size();
            int connections = 5;
            int perConnection = BAD_REQUESTS / connections;
            long start = System.nanoTime();
            for (int c = 0; c < connections; c++) {
                try (RawConnection client = RawConnection.idle(server.port)) {
                    client.send(oversized(perConnection));
                    client.untilEnded(perConnection, 30_000);
                }
            }
            long millis = (System.nanoTime() - start) / 1_000_000;
            ManagedChannel channel = NettyChannelBuilder.forTarget(server.endpoint())
                    .usePlaintext()
                    .build();
            try {
                assertThat(TenureGrpc.newBlockingStub(channel)
                                .withDeadlineAfter(30, TimeUnit.SECONDS)
                                .serverStatus(ServerStatusRequest.getDefaultInstance())
                                .getHealth())
                        .isEqualTo("ok");
            } finally {
                channel.shutdownNow();
            }
            List<String> logged =
                    server.lines().subList(linesBefore, server.lines().size());
            long bytes = logged.stream()
                    .mapToLong(l -> l.length() - "err: ".length() + 1)
                    .sum();
            System.out.printf(
                    "MalformedRequestIT: %d requests claiming 2 GiB in %d ms, each ended; the node logged %d line(s),"
                            + " %d bytes%n",
                    BAD_REQUESTS, millis, logged.size(), bytes);
            // One record, with its stack trace, per 10 s: this run takes a few seconds.
            assertThat(bytes).as("bytes logged").isLessThan(20_000);
            assertThat(logged).anySatisfy(line -> assertThat(line).contains("Exception processing message"));
        }
    }

    /** HEADERS and one DATA frame of 5 bytes for each of {@code n} Acquire calls: a prefix that claims 2 GiB. */
    private static byte[] oversized(int n) throws Exception {
        byte[] claimsTwoGibibytes = {0, 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        return CallFrames.calls(CallFrames.callHeaders("Acquire"), 1, n, List.of(claimsTwoGibibytes));
    }

    /** Acquire with {@code body} as its request message, byte for byte; the call's status. */
    private static Status acquire(ManagedChannel channel, byte[] body) {
        MethodDescriptor<byte[], byte[]> raw = TenureGrpc.getAcquireMethod().toBuilder(
                        RawBytes.INSTANCE, RawBytes.INSTANCE)
                .build();
        try {
            ClientCalls.blockingUnaryCall(
                    channel, raw, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), body);
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** An Attach stream whose first frame is {@code frame}, byte for byte; how the stream ended. */
    private static Status attachWithFirstFrame(ManagedChannel channel, byte[] frame) throws Exception {
        MethodDescriptor<byte[], byte[]> raw = TenureGrpc.getAttachMethod().toBuilder(
                        RawBytes.INSTANCE, RawBytes.INSTANCE)
                .build();
        CompletableFuture<Status> ended = new CompletableFuture<>();
        StreamObserver<byte[]> frames = ClientCalls.asyncBidiStreamingCall(
                channel.newCall(raw, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)),
                new StreamObserver<>() {
                    @Override
                    public void onNext(byte[] value) {}

                    @Override
                    public void onError(Throwable t) {
                        ended.complete(Status.fromThrowable(t));
                    }

                    @Override
                    public void onCompleted() {
                        ended.complete(Status.OK);
                    }
                });
        frames.onNext(frame);
        return ended.get(Processes.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
    }

    private static byte[] replace(byte[] in, byte[] what, byte[] with) {
        for (int i = 0; i + what.length <= in.length; i++) {
            if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
                byte[] out = in.clone();
                System.arraycopy(with, 0, out, i, with.length);
                return out;
            }
        }
        throw new IllegalArgumentException("not found");
    }

    /** A message as the bytes it is: so a test can send what no protobuf encoder would. */
    private enum RawBytes implements MethodDescriptor.Marshaller<byte[]> {
        INSTANCE;

        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
