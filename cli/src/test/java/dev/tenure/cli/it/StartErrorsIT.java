package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tenure server` on a data directory it cannot keep a log in, as a real process on a real mount,
 * or with limits its heap cannot hold: one line on stderr that says what and where, exit 1, and
 * nothing on stdout, so no "serving" (the node used to start, print "serving" and answer 503 "no
 * cluster leader reachable" when its archive could not record the log). The mounts need root; see
 * {@link TmpfsMount}.
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

    @Test
    void limitsTheHeapCannotHoldAreRefusedBeforeAnythingStartsNamingTheLargestKindTheHeapAndWhatToChange()
            throws Exception {
        Path dir = tmp.resolve("never");
        // The node's heap is bin/tenure's 512 MiB: the default limits fit it, 8 GiB of KV does not.
        Refused heap = refusal(dir, "--limit", "kvBytesMax=8GiB");
        assertThat(heap.status()).isEqualTo(1);
        assertThat(heap.output())
                .startsWith("err: tenure: the limits can fill ")
                .contains(
                        "of heap, over the 432.0 MiB this node may fill (90% of the 480.0 MiB old generation of"
                                + " -Xmx 512.0 MiB); the most is kv (kvKeysMax 50000, kvBytesMax 8589934592, ephemeral index of up to 10000 sessions): ")
                .endsWith("Give the JVM more heap (-Xmx in TENURE_JAVA_OPTS) or lower a limit (--limit NAME=VALUE;"
                        + " docs/memory.md), or start anyway with --no-heap-check");
        assertThat(dir)
                .as("nothing started: not even the data directory was made")
                .doesNotExist();
        assertThat(refusal(dir, "--limit", "kvBytesMax=lots"))
                .isEqualTo(new Refused(
                        2,
                        "err: tenure: --limit kvBytesMax=lots: not a whole number (sizes may end in KiB, MiB or GiB)"));
    }

    private static void assertRefusedWithOneLine(Path dir, String line) throws IOException, InterruptedException {
        assertThat(refusal(dir)).isEqualTo(new Refused(1, "err: " + line));
    }

    /** How a node that did not start ended: its status, and everything it printed. */
    private record Refused(int status, String output) {}

    private static Refused refusal(Path dir, String... options) throws IOException, InterruptedException {
        try (Processes.Running node = Processes.serverOn(dir, options)) {
            int status = node.waitFor(Duration.ofSeconds(60));
            return new Refused(status, node.output());
        }
    }
}
