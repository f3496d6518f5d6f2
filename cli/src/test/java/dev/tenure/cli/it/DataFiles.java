package dev.tenure.cli.it;

import dev.tenure.client.TenureClient;
import io.aeron.cluster.RecordingLog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * A stopped node's data files as a disk fault sees them: copied, searched for the bytes of a value
 * the node acknowledged, and damaged one byte at a time. Frames are found the way the archive lays
 * them out: 32-byte headers, the first four bytes the frame's length, each frame aligned to 32.
 */
final class DataFiles {
    static final int HEADER = 32;

    private DataFiles() {}

    /**
     * Runs a lone node on {@code dataDir}, puts {@code key(i)}: {@code value(i)} for i from 1 to
     * {@code puts}, each acknowledged, and kills it with -9: its log holds them all, still open.
     */
    static void killedAfterPuts(Path dataDir, int puts, IntFunction<String> key, IntFunction<String> value)
            throws Exception {
        try (ServerProcess node = new ServerProcess(dataDir).start();
                TenureClient client = node.patientClient()) {
            for (int i = 1; i <= puts; i++) {
                client.kv().put(key.apply(i), value.apply(i).getBytes(StandardCharsets.UTF_8));
            }
            node.kill9();
        }
    }

    /** A copy of {@code from} (a stopped node's data directory) at {@code to}. */
    static Path copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        return to;
    }

    /** The offset of the only occurrence of {@code text} in {@code file}; fails if not exactly one. */
    static long onlyOffsetOf(Path file, String text) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        long found = -1;
        for (int i = 0; i + needle.length <= bytes.length; i++) {
            if (matches(bytes, i, needle)) {
                if (found >= 0) {
                    throw new AssertionError(text + " occurs more than once in " + file);
                }
                found = i;
            }
        }
        if (found < 0) {
            throw new AssertionError(text + " does not occur in " + file);
        }
        return found;
    }

    private static boolean matches(byte[] bytes, int at, byte[] needle) {
        for (int j = 0; j < needle.length; j++) {
            if (bytes[at + j] != needle[j]) {
                return false;
            }
        }
        return true;
    }

    /** The start of the frame that holds byte {@code offset} of a segment file that starts with a frame. */
    static long frameStart(Path file, long offset) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        int frame = 0;
        while (true) {
            int length = bytes.getInt(frame);
            int aligned = (length + 31) & -32;
            if (length <= 0) {
                throw new AssertionError("no frame holds byte " + offset + " of " + file);
            }
            if (offset < frame + aligned) {
                return frame;
            }
            frame += aligned;
        }
    }

    /** Data frame starts of {@code file} in [from, to): the archive's frames between two log positions. */
    static List<Long> frameStarts(Path file, long from, long to) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        java.util.ArrayList<Long> starts = new java.util.ArrayList<>();
        int frame = 0;
        while (frame < to) {
            int length = bytes.getInt(frame);
            if (length <= 0) {
                break;
            }
            if (frame >= from && bytes.getShort(frame + 6) == 1) {
                starts.add((long) frame);
            }
            frame += (length + 31) & -32;
        }
        return starts;
    }

    /** XORs byte {@code offset} of {@code file} with {@code mask}, as a bit flip on disk would change it. */
    static void flip(Path file, long offset, int mask) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ mask);
        }
    }

    /** Cuts {@code file} short at {@code length} bytes. */
    static void truncate(Path file, long length) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(length);
        }
    }

    /** The recording log's valid snapshot entries of {@code serviceId} (-1: the consensus module), oldest first. */
    static List<RecordingLog.Entry> snapshots(Path dataDir, int serviceId) {
        try (RecordingLog log = new RecordingLog(dataDir.resolve("cluster").toFile(), false)) {
            return log.entries().stream()
                    .filter(e -> e.isValid && e.type == RecordingLog.ENTRY_TYPE_SNAPSHOT && e.serviceId == serviceId)
                    .toList();
        }
    }

    /** The first segment file of an archived recording. */
    static Path recording(Path dataDir, long recordingId) {
        return dataDir.resolve("archive").resolve(recordingId + "-0.rec");
    }
}
