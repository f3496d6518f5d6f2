package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.TenureClient;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lone node's log with damage at its end or inside it, as real processes on the data of a node
 * killed with -9: bytes past the end of the log, where a torn append leaves them, are dropped at
 * start, saying how many; damage to an acknowledged entry stops the start with 12, and only
 * {@code tenure repair-log} cuts it, from the position the operator names.
 */
class TornLogIT {

    /** A node's data after four acknowledged puts and kill -9: the log holds them all, still open. */
    @TempDir
    static Path killed;

    @TempDir
    Path tmp;

    @BeforeAll
    static void writeAcknowledgedValuesAndKillTheNode() throws Exception {
        DataFiles.killedAfterPuts(killed, 4, TornLogIT::key, TornLogIT::value);
    }

    @Test
    void aTornAppendPastTheLastAcknowledgementIsDroppedAtStartSayingHowMuch() throws Exception {
        Path copy = DataFiles.copy(killed, tmp.resolve("copy"));
        Path log = copy.resolve("archive/0-0.rec");
        long end = logEnd(log);
        // The first 1,000 bytes of a 4,000-byte frame: what an append cut at a page leaves.
        tornFrame(log, end, 4_000, 1_000);
        try (ServerProcess node = new ServerProcess(copy).start();
                TenureClient client = node.patientClient()) {
            assertThat(node.lines())
                    .as("one line says what went")
                    .anyMatch(l -> l.startsWith("err: tenure: torn log tail dropped: 1000 bytes from log position "
                                    + end + ", past log position ")
                            && l.contains("the last this node acknowledged (" + log + " at byte " + end));
            for (int i = 1; i <= 4; i++) {
                assertThat(client.kv().get(key(i))).as(key(i)).isPresent();
            }
        }
    }

    @Test
    void damageToAnAcknowledgedEntryStillStopsTheStartWith12() throws Exception {
        Path copy = DataFiles.copy(killed, tmp.resolve("copy"));
        Path log = copy.resolve("archive/0-0.rec");
        DataFiles.flip(log, DataFiles.onlyOffsetOf(log, value(4)) + 3, 0x01);
        try (Processes.Running node = Processes.serverOn(copy)) {
            assertThat(node.waitFor(Duration.ofSeconds(30))).as(node.output()).isEqualTo(12);
            assertThat(node.output()).contains("checksum mismatch").doesNotContain("dropped");
        }
    }

    @Test
    void repairLogCutsDamagedAcknowledgedEntriesOnlyFromThePositionTheOperatorNames() throws Exception {
        Path copy = DataFiles.copy(killed, tmp.resolve("copy"));
        Path log = copy.resolve("archive/0-0.rec");
        long frame = DataFiles.frameStart(log, DataFiles.onlyOffsetOf(log, value(3)));
        DataFiles.flip(log, DataFiles.onlyOffsetOf(log, value(3)) + 3, 0x01);

        Processes.Running later = repair(copy, frame + 32);
        assertThat(later.waitFor(Duration.ofSeconds(60))).as(later.output()).isEqualTo(12);
        assertThat(later.output()).contains("--accept-loss-from " + frame + " accepts the loss from there");

        Processes.Running repair = repair(copy, frame);
        assertThat(repair.waitFor(Duration.ofSeconds(60))).as(repair.output()).isZero();
        assertThat(repair.output())
                .contains("tenure: damaged log tail dropped: ")
                .contains(" bytes from log position " + frame + ", at or after log position " + frame)
                .contains("; the log now ends at log position " + frame);

        try (ServerProcess node = new ServerProcess(copy).start();
                TenureClient client = node.patientClient()) {
            assertThat(client.kv().get(key(1))).isPresent();
            assertThat(client.kv().get(key(2))).isPresent();
            assertThat(client.kv().get(key(3))).as("its loss was accepted").isEmpty();
            assertThat(client.kv().get(key(4))).as("after it, gone with it").isEmpty();
        }
    }

    private static Processes.Running repair(Path data, long lossFrom) throws Exception {
        return TenureCli.start(
                List.of("repair-log", "--data", data.toString(), "--accept-loss-from", Long.toString(lossFrom)));
    }

    /** Where the frames of a segment file that starts with a frame end: the first length of 0. */
    private static long logEnd(Path file) throws Exception {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int frame = 0;
        while (bytes.getInt(frame) > 0) {
            frame += (bytes.getInt(frame) + 31) & -32;
        }
        return frame;
    }

    /** The first {@code written} bytes of a data frame of {@code length} at {@code at}: a header, then payload. */
    private static void tornFrame(Path file, long at, int length, int written) throws Exception {
        ByteBuffer frame = ByteBuffer.allocate(written).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(0, length);
        frame.put(4, (byte) 0); // version
        frame.put(5, (byte) 0xc0); // begin and end
        frame.putShort(6, (short) 1); // data
        for (int i = DataFiles.HEADER; i < written; i++) {
            frame.put(i, (byte) ('t' + i % 5));
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            f.write(frame.array());
        }
    }

    private static String key(int i) {
        return "torn-key-" + i;
    }

    private static String value(int i) {
        return "torn-value-" + i + "-acknowledged";
    }
}
