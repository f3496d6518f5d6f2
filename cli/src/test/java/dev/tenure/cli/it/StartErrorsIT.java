package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.TestPorts;
import dev.tenure.testkit.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tenure server` on a data directory it cannot keep a log in, as a real process on a real mount:
 * one line on stderr that says what and where, exit 1, and nothing on stdout, so no "serving" (the
 * node used to start, print "serving" and answer 503 "no cluster leader reachable" when its
 * archive could not record the log). The mounts need root; see {@link TmpfsMount}.
 */
class StartErrorsIT {
    @TempDir
    Path tmp;

    @Test
    void aDataDirectoryOnAReadOnlyFileSystemIsRefusedByName() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("read-only"));
        TmpfsMount readOnly = TmpfsMount.on(dir, "ro,size=1m");
        try {
            assertRefusedWithOneLine(dir, "tenure: data directory " + dir + " is on a read-only file system");
        } finally {
            readOnly.close();
        }
    }

    @Test
    void aDataDirectoryWithNoRoomToRecordTheLogIsRefusedBeforeAnythingStarts() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("small"));
        TmpfsMount small = TmpfsMount.on(dir, "size=1m");
        try {
            assertRefusedWithOneLine(
                    dir,
                    "tenure: data directory " + dir + " has 1.0 MiB free on its file system (tenure-test); the log"
                            + " is recorded only with more than 128.0 MiB free"
                            + " (aeron.archive.low.storage.space.threshold)");
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .as("nothing started: only the directory's lock was made")
                        .containsExactly("tenure.lock");
            }
        } finally {
            small.close();
        }
    }

    private static void assertRefusedWithOneLine(Path dir, String line) throws IOException, InterruptedException {
        try (Processes.Running node = new Processes.Running(
                Processes.tenure(List.of(
                        "server",
                        "--data",
                        dir.toString(),
                        "--port",
                        Integer.toString(LoopbackPorts.freeTcpPort()),
                        "--admin-port",
                        "0",
                        "--cluster-port-base",
                        Integer.toString(TestPorts.freeAeronPortBase()))),
                Map.of())) {
            assertThat(node.waitFor(Duration.ofSeconds(60))).as(node.output()).isEqualTo(1);
            assertThat(node.output()).isEqualTo("err: " + line);
        }
    }
}
