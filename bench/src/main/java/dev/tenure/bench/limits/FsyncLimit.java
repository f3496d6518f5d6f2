package dev.tenure.bench.limits;

import dev.tenure.bench.report.Figures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The disk's floor under every commit: small appends to a file, each followed by
 * {@code fdatasync} ({@code FileChannel.force(false)}, what Aeron's archive does at
 * {@code fileSyncLevel=1}). One grant on a lone node waits for at least one of these (the log
 * append), so nothing that commits through the disk can be faster than this figure.
 */
final class FsyncLimit {

    static final int APPEND_BYTES = 64;
    private static final int WARMUP_APPENDS = 50;

    private FsyncLimit() {}

    static Figures run(Path dir, Duration duration) throws IOException {
        Files.createDirectories(dir);
        Path file = Files.createTempFile(dir, "tenure-bench-fsync", ".dat");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer entry = ByteBuffer.allocateDirect(APPEND_BYTES);
            for (int i = 0; i < WARMUP_APPENDS; i++) {
                append(ch, entry);
            }
            Histogram h = Figures.newHistogram();
            long start = System.nanoTime();
            long end = start + duration.toNanos();
            long now = start;
            while (now < end) {
                long t0 = System.nanoTime();
                append(ch, entry);
                now = System.nanoTime();
                h.recordValue(Math.max(1_000, now - t0));
            }
            return Figures.of("limit-fsync", 1, h.getTotalCount(), (now - start) / 1e9, h)
                    .with("latency", APPEND_BYTES + " B append + fdatasync")
                    .with("dir", dir.toAbsolutePath().normalize().toString());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static void append(FileChannel ch, ByteBuffer entry) throws IOException {
        entry.clear();
        while (entry.hasRemaining()) {
            ch.write(entry);
        }
        ch.force(false);
    }
}
