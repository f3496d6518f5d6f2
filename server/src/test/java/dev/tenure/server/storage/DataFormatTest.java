package dev.tenure.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TenureServer;
import dev.tenure.server.TestPorts;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.server.logging.LogCapture;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data directory names its format: a new one gets the current format, one written before log
 * checksums is refused until `tenure upgrade-data` has checked and checksummed it, and a format
 * this release does not know is refused.
 */
class DataFormatTest {

    /**
     * A data directory written by the release before log checksums (commit 1cbed27: `tenure server
     * --snapshot-interval 3s`, `tenure kv put old-key-N old-value-N` for N = 1 to 3, a snapshot,
     * then old-key-4, then SIGTERM), zipped without its lock and mark files.
     */
    private static final String FORMAT_1 = "format1-data.zip";

    @TempDir
    Path tmp;

    private final List<String> said = new ArrayList<>();
    private final LogCapture recovery = LogCapture.of(RecoveryCheck.class);

    @AfterEach
    void stopCapturing() {
        recovery.close();
    }

    // The node runs for the body's length: it has no other use for it.
    @SuppressWarnings("try")
    @Test
    void aNewDirectoryGetsTheCurrentFormatBeforeAnythingElse() throws Exception {
        Path data = tmp.resolve("new");
        try (TenureServer server = start(data)) {
            assertThat(Files.readAllLines(data.resolve(DataFormat.FILE)))
                    .containsExactly(
                            "tenure data format 2",
                            "log and snapshot frames carry CRC-32C checksums of their payloads");
        }
    }

    @Test
    void aDirectoryFromBeforeChecksumsIsRefusedThenUpgradedOnceAndKeepsEveryValue() throws Exception {
        Path data = unzip(FORMAT_1);
        assertThatThrownBy(() -> start(data))
                .isInstanceOf(IOException.class)
                .hasMessage("data directory " + data + " was written by a release without log checksums (it has no"
                        + " tenure-format file): run `tenure upgrade-data --data " + data + "` once with the node"
                        + " stopped, or rebuild this member from its peers"
                        + " (docs/cluster.md#a-corrupt-or-unreadable-data-file)");
        assertThat(data.resolve(DataFormat.FILE)).doesNotExist();

        assertThat(DataUpgrade.run(data, said::add))
                .startsWith("data directory " + data + " upgraded to format 2: ")
                .contains(" frames checksummed as they were");
        assertThat(DataFormat.read(data)).isEqualTo(2);
        assertThat(DataUpgrade.run(data, said::add))
                .isEqualTo("data directory " + data + " is in format 2 already: nothing to do");

        try (TenureServer server = start(data)) {
            ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                    .usePlaintext()
                    .build();
            for (int i = 1; i <= 4; i++) {
                KvGetResponse got = TenureGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .kvGet(KvGetRequest.newBuilder().setKey("old-key-" + i).build());
                assertThat(got.getCode()).isEqualTo(Code.CODE_OK);
                assertThat(got.getValue().toStringUtf8()).startsWith("old-value-" + i);
            }
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        // Nothing about the data, from the upgrade nor from the start's check.
        assertThat(said).isEmpty();
        assertThat(recovery.lines()).isEmpty();
    }

    @Test
    void aFormatThisReleaseDoesNotKnowIsRefused() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("newer"));
        Files.writeString(data.resolve(DataFormat.FILE), "tenure data format 3\nsomething newer\n");
        assertThatThrownBy(() -> start(data))
                .isInstanceOf(IOException.class)
                .hasMessage("data directory " + data + " is in data format 3 (tenure-format), written by a newer"
                        + " release; this release reads format 2 only");
        Files.writeString(data.resolve(DataFormat.FILE), "tenure dada format 2\n");
        assertThatThrownBy(() -> start(data))
                .isInstanceOf(CorruptDataException.class)
                .hasMessage(data.resolve(DataFormat.FILE) + " at byte 0 (the data directory's format; the file ends at"
                        + " byte 21): the first line is not \"tenure data format N\" but \"tenure dada format 2\"");
    }

    /** Named in an operator's words: the JDK's own messages here name no file, or only a Java class. */
    @Test
    void aFormatFileThatIsNotTextOrNotAFileIsRefusedByName() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("odd"));
        Path file = data.resolve(DataFormat.FILE);
        Files.write(file, new byte[] {(byte) 0xc3, 0x28, '\n'});
        assertThatThrownBy(() -> start(data))
                .isInstanceOf(CorruptDataException.class)
                .hasMessage(file + " at byte 0 (the data directory's format; the file ends at byte 3): the file is not"
                        + " UTF-8 text");
        Files.delete(file);
        Files.createDirectory(file);
        assertThatThrownBy(() -> start(data))
                .isInstanceOf(IOException.class)
                .hasMessage(file + " cannot be read: Is a directory");
    }

    private TenureServer start(Path data) throws Exception {
        int port = LoopbackPorts.freeTcpPort();
        ServerConfig config = ServerConfig.member(
                0, List.of(new ServerConfig.Member(0, "127.0.0.1", port, TestPorts.freeAeronPortBase())), data, 0);
        TenureServer server = TenureServer.start(config, new RecordedFatals());
        Await.atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(100))
                .until("the node healthy", server::status, s -> "ok".equals(s.getHealth()));
        return server;
    }

    private Path unzip(String resource) throws IOException {
        try (InputStream in = DataFormatTest.class.getResourceAsStream(resource);
                ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                Path target = tmp.resolve(e.getName()).normalize();
                if (!target.startsWith(tmp)) {
                    throw new IOException("zip entry outside the directory: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(zip, target);
                }
            }
            return tmp.resolve("format1");
        }
    }
}
