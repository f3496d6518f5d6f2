package dev.tenure.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TenureServer;
import dev.tenure.server.TestPorts;
import dev.tenure.server.TestTimings;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import io.aeron.cluster.RecordingLog;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a node recovers from is checked before it starts, on real data written by a real node:
 * every single-bit change of an entry's frame (header, payload, padding) is refused and named, and
 * a damaged snapshot whose log the node has deleted stops the start.
 */
class LogIntegrityTest {

    @TempDir
    Path data;

    private final List<String> said = new ArrayList<>();

    /**
     * Each of the 8 bits of each byte of one put's frame, flipped alone: the frame checksum
     * catches the payload and padding, the walk's own checks the header it does not cover (a
     * length that keeps the frame's size, flags, offsets, ids, the reserved value).
     */
    @Test
    void everySingleBitFlipInAnEntrysFrameIsRefusedAtThatFrame() throws Exception {
        try (TenureServer server = start(config(Duration.ZERO));
                Client client = new Client(server.port())) {
            for (int i = 0; i < 3; i++) {
                client.put("key-" + i, ByteString.copyFromUtf8("value-" + i + "-written"));
            }
        }
        RecoveryCheck.run(data, true, said::add);
        Path segment = data.resolve("archive/0-0.rec");
        long frame = frameStart(segment, offsetOf(segment, "value-1-written"));
        int aligned = (frameLength(segment, frame) + 31) & -32;
        int refused = 0;
        for (int b = 0; b < aligned; b++) {
            for (int bit = 0; bit < 8; bit++) {
                flip(segment, frame + b, 1 << bit);
                CorruptDataException e = catchThrowableOfType(
                        CorruptDataException.class, () -> RecoveryCheck.run(data, true, said::add));
                flip(segment, frame + b, 1 << bit);
                assertThat(e).as("byte %d bit %d of the frame flipped", b, bit).isNotNull();
                assertThat(e.file()).isEqualTo(segment);
                assertThat(e.fileOffset())
                        .as("byte %d bit %d: %s", b, bit, e.getMessage())
                        .isEqualTo(frame);
                refused++;
            }
        }
        assertThat(refused).isEqualTo(aligned * 8);
        System.out.printf(
                "LogIntegrityTest: %d of %d single-bit flips of a %d-byte frame refused%n",
                refused, aligned * 8, aligned);
        RecoveryCheck.run(data, true, said::add); // every flip undone: intact again
        assertThat(said).isEmpty();
    }

    /**
     * Snapshots every second over more than a 16 MiB segment of log, so the node deletes the log
     * before its older snapshots; then every snapshot it still has is damaged. None can be
     * replaced: the log they would be rebuilt from is gone, and the start says so.
     */
    @Test
    void aDamagedSnapshotWhoseEarlierLogWasDeletedStopsTheStart() throws Exception {
        ServerConfig config = config(Duration.ofSeconds(1));
        try (TenureServer server = start(config);
                Client client = new Client(server.port())) {
            ByteString value = ByteString.copyFrom(new byte[60 * 1024]);
            for (int i = 0; i < 640; i++) {
                client.put("k" + (i % 8), value.concat(ByteString.copyFromUtf8("#" + i)));
            }
            awaitStatus(server, "log deleted", s -> s.getLogStartPosition() > 0);
        }
        List<RecordingLog.Entry> snapshots;
        try (RecordingLog recordingLog =
                new RecordingLog(data.resolve("cluster").toFile(), false)) {
            snapshots = recordingLog.entries().stream()
                    .filter(e -> e.isValid && e.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && e.serviceId == 0)
                    .filter(e -> Files.exists(data.resolve("archive/" + e.recordingId + "-0.rec")))
                    .toList();
        }
        assertThat(snapshots).as("the snapshots the node kept").hasSizeGreaterThanOrEqualTo(2);
        for (RecordingLog.Entry s : snapshots) {
            flip(data.resolve("archive/" + s.recordingId + "-0.rec"), 96 + 40, 0x01); // its second frame
        }
        Path latest = data.resolve("archive/" + snapshots.get(snapshots.size() - 1).recordingId + "-0.rec");
        assertThatThrownBy(() -> start(config))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageStartingWith(latest + " at byte ")
                .hasMessageContaining("checksum mismatch")
                .hasMessageContaining(
                        "no earlier snapshot with the log after it, nor the whole log, is there to" + " recover from")
                .hasMessageEndingWith("a single node has no peers to rebuild it from: see"
                        + " docs/cluster.md#a-corrupt-or-unreadable-data-file");
    }

    private TenureServer start(ServerConfig config) throws Exception {
        TenureServer server = TenureServer.start(config, new RecordedFatals());
        awaitStatus(server, "the node healthy", s -> "ok".equals(s.getHealth()));
        return server;
    }

    private ServerConfig config(Duration snapshotInterval) {
        int port = LoopbackPorts.freeTcpPort();
        return ServerConfig.singleNode(data, port, 0, TestPorts.freeAeronPortBase())
                .with(TestTimings::apply)
                .withSnapshotInterval(snapshotInterval);
    }

    private static ServerStatusResponse awaitStatus(
            TenureServer server, String what, Predicate<ServerStatusResponse> done) throws InterruptedException {
        return Await.atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(100))
                .until(what, server::status, done);
    }

    private static long offsetOf(Path file, String text) throws Exception {
        byte[] bytes = Files.readAllBytes(file);
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (bytes[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError(text + " not in " + file);
    }

    private static long frameStart(Path file, long offset) throws Exception {
        long frame = 0;
        while (frame + ((frameLength(file, frame) + 31) & -32) <= offset) {
            frame += (frameLength(file, frame) + 31) & -32;
        }
        return frame;
    }

    private static int frameLength(Path file, long frame) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            byte[] header = new byte[4];
            f.seek(frame);
            f.readFully(header);
            return ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }
    }

    private static void flip(Path file, long offset, int mask) throws Exception {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ mask);
        }
    }

    private record Client(ManagedChannel channel) implements AutoCloseable {
        Client(int port) {
            this(NettyChannelBuilder.forAddress("127.0.0.1", port)
                    .usePlaintext()
                    .maxInboundMessageSize(1 << 20)
                    .build());
        }

        void put(String key, ByteString value) {
            Code code = TenureGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .kvPut(KvPutRequest.newBuilder().setKey(key).setValue(value).build())
                    .getCode();
            assertThat(code).as("put %s", key).isEqualTo(Code.CODE_OK);
        }

        @Override
        public void close() {
            try {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                // A close in a try-with-resources must not hide an interrupt: it is kept for the test.
                Thread.currentThread().interrupt();
            }
        }
    }
}
