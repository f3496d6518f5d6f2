package dev.tenure.server.storage;

import static dev.tenure.server.InProcessServerTest.acquire;
import static dev.tenure.server.InProcessServerTest.put;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.TenureServer;
import dev.tenure.server.TestPorts;
import dev.tenure.server.TestTimings;
import dev.tenure.server.cluster.AeronContexts;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's files are its user's alone, whatever the umask: this JVM's umask (022 on a usual
 * machine) would make them 0644 and their directories 0755.
 */
class OwnerOnlyFilesTest {
    private static final Duration SWEPT_WITHIN = Duration.ofSeconds(10);

    @TempDir
    Path tmp;

    @Test
    void tightenMakesDirectoriesOwnerOnlyAndFilesOwnerReadWriteWithoutFollowingLinks() throws IOException {
        Path root = Files.createDirectories(tmp.resolve("root/sub"));
        Path file = Files.writeString(root.resolve("f"), "x");
        Path outside = Files.writeString(tmp.resolve("outside"), "y");
        Files.setPosixFilePermissions(outside, PosixFilePermissions.fromString("rw-r--r--"));
        Files.createSymbolicLink(root.resolve("link"), outside);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThat(OwnerOnlyFiles.tighten(tmp.resolve("root"))).isEqualTo(3); // root, sub, f
        assertThat(mode(tmp.resolve("root"))).isEqualTo("rwx------");
        assertThat(mode(root)).isEqualTo("rwx------");
        assertThat(mode(file)).isEqualTo("rw-------");
        assertThat(mode(outside)).as("a link's target is not the node's").isEqualTo("rw-r--r--");
        assertThat(OwnerOnlyFiles.tighten(tmp.resolve("root"))).isZero();
    }

    // The try's resource is the node, which does not close the log stream it is given.
    @SuppressWarnings("ClosingStandardOutputStreams")
    @Test
    void everyFileOfARealNodeIsOwnerOnlyAfterItStartsAndWrites() throws Exception {
        Path data = tmp.resolve("made-by-the-node/data"); // made by the node, with this JVM's umask
        ServerConfig config = ServerConfig.member(
                        0,
                        List.of(new ServerConfig.Member(
                                0, "127.0.0.1", LoopbackPorts.freeTcpPort(), TestPorts.freeAeronPortBase())),
                        data,
                        LoopbackPorts.freeTcpPort())
                .with(TestTimings::apply);
        Path driverParent = Path.of(AeronContexts.aeronDirFor(config)).getParent();
        RecordedFatals fatals = new RecordedFatals();
        try (TenureServer server = TenureServer.start(config, fatals)) {
            // The directories hold from the start: no file in them is reachable by anyone else.
            for (Path dir : List.of(data, data.resolve("archive"), data.resolve("cluster"), driverParent)) {
                assertThat(mode(dir)).as(dir.toString()).isEqualTo("rwx------");
            }
            writeSome(server);
            Await.atMost(SWEPT_WITHIN)
                    .every(Duration.ofMillis(50))
                    .until(
                            "every file 0600 and every directory 0700",
                            () -> notOwnerOnly(data, driverParent).isEmpty());
            assertThat(files(data)).as("files checked under the data directory").hasSizeGreaterThan(5);
            assertThat(files(driverParent))
                    .as("files checked under the media driver's")
                    .isNotEmpty();
        } finally {
            Dirs.deleteTree(tmp.resolve("made-by-the-node"));
        }
        assertThat(fatals.lines()).isEmpty();
        assertThat(driverParent).as("removed with the node").doesNotExist();
    }

    /** A session, a lock and a few KV writes: log entries, archive segments, buffers. */
    private static void writeSome(TenureServer server) throws Exception {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .usePlaintext()
                .build();
        try {
            var stub = TenureGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
            SessionStream s = new SessionStream(channel);
            long session = s.open(10_000);
            long token = stub.acquire(acquire(session, 1, "owner-only", 0))
                    .getGrant()
                    .getToken();
            for (int i = 0; i < 20; i++) {
                assertThat(stub.kvPut(put(session, 2 + i, "k" + i, "v", "owner-only", token))
                                .getCode())
                        .isEqualTo(Code.CODE_OK);
            }
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /** Every file not 0600 and every directory not 0700 under the roots, with its mode. */
    private static List<String> notOwnerOnly(Path... roots) throws IOException {
        List<String> open = new ArrayList<>();
        for (Path root : roots) {
            try (Stream<Path> all = Files.walk(root)) {
                open.addAll(notOwnerOnly(all.toList()));
            } catch (java.io.UncheckedIOException raced) {
                open.add("(a file went away during the walk: " + raced.getMessage() + ")");
            }
        }
        return open;
    }

    private static List<String> notOwnerOnly(List<Path> paths) throws IOException {
        List<String> open = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isSymbolicLink(p) || !Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            String want = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "rwx------" : "rw-------";
            String mode = mode(p);
            if (mode != null && !mode.equals(want)) {
                open.add(p + " " + mode);
            }
        }
        return open;
    }

    private static List<Path> files(Path root) throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(Files::isRegularFile).toList();
        }
    }

    /** The mode as rwx text; null if the file went away meanwhile. */
    private static String mode(Path p) throws IOException {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
        } catch (java.nio.file.NoSuchFileException gone) {
            return null;
        }
    }
}
