package dev.tenure.server.storage;

import io.aeron.archive.client.AeronArchive;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Drops the end of a recording that is still open (the node died writing it): its segment files
 * keep their length, and every byte from the cut on reads zero, as the archive leaves what it
 * never wrote, so the archive's own recovery finds the recording's end at the cut. The bytes are
 * cut off and the file extended again rather than overwritten with zeros: on a file system that
 * just filled up, writing zeros would need room that extending a file with a hole does not.
 */
final class LogTail {
    private LogTail() {}

    /** Drops {@code recording}'s bytes from {@code from} on; returns how many held data (up to the last non-zero byte). */
    static long drop(Path archiveDir, ArchiveCatalog.Recording recording, long from) {
        long base = AeronArchive.segmentFileBasePosition(
                recording.startPosition(), from, recording.termLength(), recording.segmentLength());
        long dataEnd = from;
        for (long next = base; ; next += recording.segmentLength()) {
            Path file = ArchiveCatalog.segmentFile(archiveDir, recording, next);
            if (!Files.exists(file)) {
                break;
            }
            long cut = next == base ? from - base : 0;
            long last = lastNonZero(file, cut);
            if (last >= 0) {
                dataEnd = next + last + 1;
            }
            try {
                if (next == base) {
                    cut(file, cut);
                } else {
                    Files.delete(file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot drop the torn end of " + file + ": " + e.getMessage(), e);
            }
        }
        return dataEnd - from;
    }

    private static void cut(Path file, long at) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            long length = f.length();
            f.setLength(at);
            f.setLength(length);
            f.getFD().sync();
        }
    }

    /** The offset of the last non-zero byte of {@code file} at or after {@code from}, or -1. */
    private static long lastNonZero(Path file, long from) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer chunk = ByteBuffer.allocate(1 << 16);
            long last = -1;
            for (long at = from; at < channel.size(); at += chunk.capacity()) {
                chunk.clear();
                int read = channel.read(chunk, at);
                for (int i = 0; i < read; i++) {
                    if (chunk.get(i) != 0) {
                        last = at + i;
                    }
                }
            }
            return last;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
