package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.ServerStatus;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Await;
import io.aeron.cluster.RecordingLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node whose data files were damaged on disk while it was down, as real processes: a node
 * writes acknowledged values and is killed with -9, its data directory is copied, one byte of the
 * copy is changed (located by the value's own bytes in the archived log) or the log is cut short,
 * and a node is started on the copy. Damage in the log ends the start with exit 12 and one line
 * that names the file and the frame's byte; a damaged snapshot is replaced by the one before it
 * and the log after that, and every acknowledged value is there; when nothing can replace it, exit
 * 12. Before log checksums, a flipped value byte was served as the value, and a flipped key or
 * frame length byte lost the acknowledged write.
 */
class CorruptDataIT {

    private static final Duration EXIT_BOUND = Duration.ofSeconds(30);
    private static final String SINGLE_NODE_REMEDY =
            "; a single node has no peers to rebuild it from: see docs/cluster.md#a-corrupt-or-unreadable-data-file";

    /** A node's data after four acknowledged puts and kill -9, no snapshot: the log holds them all. */
    @TempDir
    static Path logOnly;

    /** A node's data with snapshots every second: values before, between and after the last two. */
    @TempDir
    static Path withSnapshots;

    @TempDir
    Path tmp;

    @BeforeAll
    static void writeAcknowledgedValuesAndKillTheNodes() throws Exception {
        DataFiles.killedAfterPuts(logOnly, 4, CorruptDataIT::key, CorruptDataIT::value);
        try (ServerProcess node = new ServerProcess(withSnapshots)
                        .withAdmin()
                        .withOptions("--snapshot-interval", "1s")
                        .start();
                TenureClient client = client(node)) {
            put(client, "before");
            ServerStatus first = awaitStatus(client, "two snapshots", s -> s.snapshots() >= 2);
            put(client, "between");
            long written = client.serverStatus().replicaLogPosition();
            awaitStatus(
                    client,
                    "a snapshot after the values between",
                    s -> s.snapshots() > first.snapshots() && s.snapshotPosition() > written);
            put(client, "after");
            node.kill9();
        }
    }

    @Test
    void aFlippedValueByteStopsTheStartWithTwelveNamingTheFileAndTheFrame() throws Exception {
        Path copy = DataFiles.copy(logOnly, tmp.resolve("copy"));
        Path log = copy.resolve("archive/0-0.rec");
        long at = DataFiles.onlyOffsetOf(log, value(2)) + 5;
        DataFiles.flip(log, at, 0x01);
        assertRefusedNaming(copy, log, DataFiles.frameStart(log, at), "checksum mismatch");
    }

    @Test
    void aFlippedKeyByteStopsTheStartWithTwelve() throws Exception {
        Path copy = DataFiles.copy(logOnly, tmp.resolve("copy"));
        Path log = copy.resolve("archive/0-0.rec");
        long at = DataFiles.onlyOffsetOf(log, key(3)) + 2;
        DataFiles.flip(log, at, 0x40);
        assertRefusedNaming(copy, log, DataFiles.frameStart(log, at), "checksum mismatch");
    }

    /**
     * The frame checksum covers the payload, not the header: a length that grows or shrinks
     * within the frame's 32 bytes, or a length byte made large or negative, is still refused.
     */
    @Test
    void aFlippedFrameLengthByteStopsTheStartWithTwelve() throws Exception {
        int[][] flips = {{0, 0x01}, {0, 0x08}, {0, 0x80}, {1, 0x01}, {3, 0x80}};
        for (int[] flip : flips) {
            Path copy = DataFiles.copy(logOnly, tmp.resolve("copy-" + flip[0] + "-" + flip[1]));
            Path log = copy.resolve("archive/0-0.rec");
            long frame = DataFiles.frameStart(log, DataFiles.onlyOffsetOf(log, value(1)));
            DataFiles.flip(log, frame + flip[0], flip[1]);
            assertRefusedNaming(copy, log, frame, "");
        }
    }

    @Test
    void aLogCutShortInsideAnEntryStopsTheStartWithTwelve() throws Exception {
        Path copy = DataFiles.copy(logOnly, tmp.resolve("copy"));
        Path log = copy.resolve("archive/0-0.rec");
        long frame = DataFiles.frameStart(log, DataFiles.onlyOffsetOf(log, value(4)));
        DataFiles.truncate(log, frame + 40);
        assertRefusedNaming(copy, log, frame, "the file ends before this frame does");
        assertThat(Files.size(log)).isEqualTo(frame + 40); // the end the line names
    }

    @Test
    void aDamagedStateMachineSnapshotIsReplacedByTheOneBeforeAndEveryValueIsThere() throws Exception {
        Path copy = DataFiles.copy(withSnapshots, tmp.resolve("copy"));
        Path snapshot = latestSnapshot(copy, 0);
        DataFiles.flip(snapshot, DataFiles.onlyOffsetOf(snapshot, key("before", 0)), 0x01);
        assertRecoversEverything(copy, snapshot);
    }

    @Test
    void aDamagedConsensusModuleSnapshotIsReplacedByTheOneBeforeAndEveryValueIsThere() throws Exception {
        Path copy = DataFiles.copy(withSnapshots, tmp.resolve("copy"));
        Path snapshot = latestSnapshot(copy, -1);
        DataFiles.flip(snapshot, 96 + DataFiles.HEADER + 8, 0x01); // the payload of its second frame, at 96
        assertRecoversEverything(copy, snapshot);
    }

    /** The snapshot before needs the log after it, and that is damaged too: nothing can replace it. */
    @Test
    void aDamagedSnapshotThatNothingCanReplaceStopsTheStartWithTwelve() throws Exception {
        Path copy = DataFiles.copy(withSnapshots, tmp.resolve("copy"));
        Path snapshot = latestSnapshot(copy, 0);
        DataFiles.flip(snapshot, DataFiles.onlyOffsetOf(snapshot, key("before", 0)), 0x01);
        List<RecordingLog.Entry> snapshots = DataFiles.snapshots(copy, 0);
        long previous = snapshots.get(snapshots.size() - 2).logPosition;
        long latest = snapshots.get(snapshots.size() - 1).logPosition;
        Path log = copy.resolve("archive/0-0.rec");
        long frame = DataFiles.frameStarts(log, previous, latest).get(0);
        DataFiles.flip(log, frame + DataFiles.HEADER + 4, 0x01);
        String line = startExpectingTwelve(copy);
        assertThat(line)
                .startsWith("err: tenure: corrupt data file: " + snapshot + " at byte ")
                .contains("the snapshot before it cannot replace it: " + log + " at byte " + frame + " (log position "
                        + frame + "; the file ends at byte " + Files.size(log) + "): checksum mismatch")
                .endsWith(SINGLE_NODE_REMEDY);
    }

    private void assertRecoversEverything(Path copy, Path damaged) throws Exception {
        try (ServerProcess node = new ServerProcess(copy).start();
                TenureClient client = client(node)) {
            assertThat(node.lines())
                    .as("the start says which file it set aside and what it recovers from")
                    .anyMatch(l -> l.startsWith("err: tenure: corrupt data file: " + damaged + " at byte ")
                            && l.contains("; recovering from the snapshot at log position "));
            for (String phase : List.of("before", "between", "after")) {
                for (int i = 0; i < 3; i++) {
                    String expected = value(phase, i);
                    assertThat(client.kv().get(key(phase, i)))
                            .as("acknowledged %s", key(phase, i))
                            .hasValueSatisfying(e ->
                                    assertThat(new String(e.value(), UTF_8)).isEqualTo(expected));
                }
            }
        }
    }

    private static void assertRefusedNaming(Path dataDir, Path file, long frame, String reason) throws Exception {
        String line = startExpectingTwelve(dataDir);
        assertThat(line)
                .startsWith("err: tenure: corrupt data file: " + file + " at byte " + frame + " (log position " + frame
                        + "; the file ends at byte " + Files.size(file) + "): " + reason)
                .endsWith(SINGLE_NODE_REMEDY);
    }

    /** Starts a node on {@code dataDir}, which must end with 12 and exactly one line; returns it. */
    private static String startExpectingTwelve(Path dataDir) throws Exception {
        long started = System.nanoTime();
        try (Processes.Running node = Processes.serverOn(dataDir)) {
            assertThat(node.waitFor(EXIT_BOUND)).as(node.output()).isEqualTo(12);
            System.out.printf(
                    "CorruptDataIT: exit 12 %d ms after the start: %s%n",
                    (System.nanoTime() - started) / 1_000_000, node.output());
            List<String> lines = new ArrayList<>(node.all);
            assertThat(lines).as("one line on stderr, nothing on stdout").hasSize(1);
            return lines.get(0);
        }
    }

    private static Path latestSnapshot(Path dataDir, int serviceId) {
        List<RecordingLog.Entry> snapshots = DataFiles.snapshots(dataDir, serviceId);
        return DataFiles.recording(dataDir, snapshots.get(snapshots.size() - 1).recordingId);
    }

    private static TenureClient client(ServerProcess node) {
        return TenureClient.builder().endpoints(node.endpoint()).build();
    }

    private static void put(TenureClient client, String phase) {
        for (int i = 0; i < 3; i++) {
            client.kv().put(key(phase, i), value(phase, i).getBytes(UTF_8));
        }
    }

    private static ServerStatus awaitStatus(TenureClient client, String what, Predicate<ServerStatus> done)
            throws InterruptedException {
        return Await.atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(100))
                .until(what, client::serverStatus, done);
    }

    private static String key(int i) {
        return "integrity-key-" + i;
    }

    private static String value(int i) {
        return "integrity-value-" + i + "-acknowledged";
    }

    private static String key(String phase, int i) {
        return "snap-" + phase + "-key-" + i;
    }

    private static String value(String phase, int i) {
        return "snap-" + phase + "-value-" + i;
    }
}
