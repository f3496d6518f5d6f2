package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvGetRequest;
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
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archived log stays bounded: once snapshots cover it, whole segments before the oldest
 * kept snapshot are deleted, and a restart still recovers every acknowledged write from the
 * snapshot plus the log that is left.
 */
class LogRetentionTest {

    /** Over two 16 MiB archive segments of log, in 60 KiB values. */
    private static final int PUTS = 640;

    private static final int VALUE_BYTES = 60 * 1024;

    @TempDir
    Path data;

    // The try's resource is the node, which does not close the log stream it is given.
    @SuppressWarnings("ClosingStandardOutputStreams")
    @Test
    void deletesLogCoveredBySnapshotsAndRecoversAfterRestart() throws Exception {
        ServerConfig config = config();
        long logStart;
        try (TenureServer server = TenureServer.start(config, new RecordedFatals())) {
            awaitStatus(server, "the node healthy", s -> "ok".equals(s.getHealth()));
            try (Client client = new Client(server.port())) {
                ByteString value = ByteString.copyFrom(new byte[VALUE_BYTES]);
                for (int i = 0; i < PUTS; i++) {
                    Code code = client.stub()
                            .kvPut(KvPutRequest.newBuilder()
                                    .setKey("k" + (i % 8))
                                    .setValue(value.concat(ByteString.copyFromUtf8("#" + i)))
                                    .build())
                            .getCode();
                    assertThat(code).as("put %d", i).isEqualTo(Code.CODE_OK);
                }
            }
            ServerStatusResponse compacted = awaitStatus(server, "log deleted", s -> s.getLogStartPosition() > 0);
            logStart = compacted.getLogStartPosition();
            assertThat(logStart)
                    .as("log deleted only up to the oldest kept snapshot")
                    .isLessThanOrEqualTo(compacted.getSnapshotPosition());
            assertThat(compacted.getReplicaLogPosition()).isGreaterThan((long) PUTS * VALUE_BYTES);
        }
        // Restart on the same data: recovery starts from a snapshot and replays the retained log.
        try (TenureServer server = TenureServer.start(config, new RecordedFatals())) {
            ServerStatusResponse status = awaitStatus(server, "the node healthy", s -> "ok".equals(s.getHealth()));
            assertThat(status.getLastToken()).isZero();
            try (Client client = new Client(server.port())) {
                for (int k = 0; k < 8; k++) {
                    var got = client.stub()
                            .kvGet(KvGetRequest.newBuilder().setKey("k" + k).build());
                    int last = PUTS - 8 + k;
                    assertThat(got.getCode()).isEqualTo(Code.CODE_OK);
                    assertThat(got.getValue().substring(VALUE_BYTES).toStringUtf8())
                            .as("key k%d holds its last acknowledged value", k)
                            .isEqualTo("#" + last);
                }
            }
            assertThat(awaitStatus(server, "log deleted", s -> s.getLogStartPosition() > 0)
                            .getLogStartPosition())
                    .isGreaterThanOrEqualTo(logStart);
        }
    }

    private ServerConfig config() {
        int port = LoopbackPorts.freeTcpPort();
        return ServerConfig.singleNode(data, port, 0, TestPorts.freeAeronPortBase())
                .with(TestTimings::apply)
                .withSnapshotInterval(Duration.ofMillis(300));
    }

    private static ServerStatusResponse awaitStatus(
            TenureServer server, String what, Predicate<ServerStatusResponse> done) throws InterruptedException {
        return Await.atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(100))
                .until(what, server::status, done);
    }

    private record Client(ManagedChannel channel) implements AutoCloseable {
        Client(int port) {
            this(NettyChannelBuilder.forAddress("127.0.0.1", port)
                    .usePlaintext()
                    .maxInboundMessageSize(1 << 20)
                    .build());
        }

        TenureGrpc.TenureBlockingStub stub() {
            return TenureGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
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
