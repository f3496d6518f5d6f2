package dev.tenure.server.storage;

import io.aeron.protocol.DataHeaderFlyweight;
import io.aeron.protocol.HeaderFlyweight;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Stream;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes the CRC-32C of every data frame's payload into its header, where the archive would have
 * put it had it recorded with checksums: what Aeron's {@code ArchiveTool checksum} does, over every
 * segment file of every recording in the catalog, each walked from its first frame to the first
 * frame length of zero, then synced. Run on a stopped node's archive only.
 */
final class FrameChecksums {

    private static final int HEADER = DataHeaderFlyweight.HEADER_LENGTH;

    private FrameChecksums() {}

    /** Checksums every frame of every recording in {@code archiveDir}; returns how many frames. */
    static long addTo(Path archiveDir) throws IOException {
        long frames = 0;
        for (ArchiveCatalog.Recording r : ArchiveCatalog.read(archiveDir).values()) {
            long startTermOffset = r.startPosition() & (r.termLength() - 1);
            long startTermBase = r.startPosition() - startTermOffset;
            for (Path file : segmentFiles(archiveDir, r.recordingId())) {
                long base = Long.parseLong(file.getFileName()
                        .toString()
                        .substring(Long.toString(r.recordingId()).length() + 1)
                        .replace(ArchiveCatalog.SEGMENT_SUFFIX, ""));
                frames += addTo(file, base == startTermBase ? (int) startTermOffset : 0);
            }
        }
        return frames;
    }

    private static long addTo(Path file, int from) throws IOException {
        long frames = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size());
            try {
                UnsafeBuffer buffer = new UnsafeBuffer(mapped);
                int offset = from;
                while (offset + HEADER <= buffer.capacity()) {
                    int frameLength = buffer.getInt(offset, ByteOrder.LITTLE_ENDIAN);
                    if (frameLength < HEADER) {
                        break; // the end (0), or damage the check before this refused
                    }
                    int aligned = (frameLength + 31) & -32;
                    if (offset + aligned > buffer.capacity()) {
                        break;
                    }
                    int type = buffer.getShort(offset + HeaderFlyweight.TYPE_FIELD_OFFSET, ByteOrder.LITTLE_ENDIAN);
                    if (type == HeaderFlyweight.HDR_TYPE_DATA) {
                        int crc =
                                FrameChecksum.CRC32C.compute(buffer.addressOffset(), offset + HEADER, aligned - HEADER);
                        buffer.putInt(
                                offset + DataHeaderFlyweight.SESSION_ID_FIELD_OFFSET, crc, ByteOrder.LITTLE_ENDIAN);
                        frames++;
                    }
                    offset += aligned;
                }
                mapped.force();
            } finally {
                BufferUtil.free(mapped);
            }
        }
        return frames;
    }

    private static List<Path> segmentFiles(Path archiveDir, long recordingId) throws IOException {
        String prefix = recordingId + "-";
        try (Stream<Path> files = Files.list(archiveDir)) {
            return files.filter(f -> {
                        String name = f.getFileName().toString();
                        return name.startsWith(prefix) && name.endsWith(ArchiveCatalog.SEGMENT_SUFFIX);
                    })
                    .sorted()
                    .toList();
        }
    }
}
