package dev.tenure.server.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The log position past which a lone node has acknowledged nothing, kept in {@value #FILE} in its
 * data directory: its state machine raises it before it sends any reply or event of an entry, so
 * every acknowledged entry ends at or before it. It never passes what the archive has recorded and
 * synced (a lone node applies only what is committed, and commits only what is recorded), so the
 * log up to it was written whole. Bytes after it that do not check out are a torn append that no
 * client was told of (the disk filled, or the node died, in the middle of writing them), and may
 * be dropped; damage before it is damage to acknowledged data.
 *
 * <p>It is written through shared memory, with no sync per entry (a sync would cost every write
 * its latency): it outlives the process ({@code kill -9}, exit 15), not the machine. So the file
 * also names the boot it was written in ({@code /proc/sys/kernel/random/boot_id}), and a position
 * written in another boot is not trusted. Two copies, each with a CRC-32C, make a process that
 * dies between the two halves of one update leave the previous, complete copy.
 *
 * <p>Layout (little-endian, {@value #LENGTH} bytes): 0 magic {@code "TACK"}, 4 version 1, 8 the
 * boot id (16 bytes), then two copies of {position (8), CRC-32C of the position's and the boot
 * id's bytes (4), 4 zero bytes} at 32 and 48.
 */
public final class AcknowledgedPosition {

    public static final String FILE = "acknowledged-position";

    private static final int LENGTH = 64;
    private static final int MAGIC = 0x4b434154; // "TACK" read little-endian
    private static final int VERSION = 1;
    private static final int BOOT = 8;
    private static final int[] COPIES = {32, 48};
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    /** Unmapped when collected, never by hand: the service's thread writes to it until it stops. */
    // Never read: held so that the mapping lives as long as this object, whose buffer points into it.
    @SuppressWarnings("UnusedVariable")
    private final MappedByteBuffer mapped;

    private final UnsafeBuffer buffer;
    private final byte[] boot;
    private final CRC32C crc = new CRC32C();
    private long position;

    private AcknowledgedPosition(MappedByteBuffer mapped, byte[] boot, long position) {
        this.mapped = mapped;
        this.buffer = new UnsafeBuffer(mapped);
        this.boot = boot;
        this.position = position;
    }

    /**
     * The position {@code dataDir}'s file trusts: written in this boot, with a copy that checks
     * out. Empty without the file, from another boot, or on a system without a boot id.
     */
    public static OptionalLong trusted(Path dataDir) {
        Path file = dataDir.resolve(FILE);
        byte[] boot = currentBoot();
        if (boot == null || !Files.isRegularFile(file)) {
            return OptionalLong.empty();
        }
        try {
            byte[] bytes = Files.readAllBytes(file);
            if (bytes.length != LENGTH) {
                return OptionalLong.empty();
            }
            UnsafeBuffer b = new UnsafeBuffer(bytes);
            byte[] written = new byte[16];
            b.getBytes(BOOT, written);
            if (b.getInt(0, ByteOrder.LITTLE_ENDIAN) != MAGIC
                    || b.getInt(4, ByteOrder.LITTLE_ENDIAN) != VERSION
                    || !java.util.Arrays.equals(written, boot)) {
                return OptionalLong.empty();
            }
            long best = -1;
            for (int copy : COPIES) {
                long p = b.getLong(copy, ByteOrder.LITTLE_ENDIAN);
                if (p >= 0 && b.getInt(copy + 8, ByteOrder.LITTLE_ENDIAN) == checksum(new CRC32C(), p, boot)) {
                    best = Math.max(best, p);
                }
            }
            return best < 0 ? OptionalLong.empty() : OptionalLong.of(best);
        } catch (IOException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Starts {@code dataDir}'s file afresh at {@code position} (a log checked whole up to there),
     * in this boot, synced: from here on, {@link #advance} keeps it. Returns null on a system
     * without a boot id, where a position could never be trusted.
     */
    public static @Nullable AcknowledgedPosition start(Path dataDir, long position) {
        byte[] boot = currentBoot();
        if (boot == null) {
            return null;
        }
        Path file = dataDir.resolve(FILE);
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH);
            AcknowledgedPosition marker = new AcknowledgedPosition(mapped, boot, -1);
            marker.buffer.setMemory(0, LENGTH, (byte) 0);
            marker.buffer.putInt(0, MAGIC, ByteOrder.LITTLE_ENDIAN);
            marker.buffer.putInt(4, VERSION, ByteOrder.LITTLE_ENDIAN);
            marker.buffer.putBytes(BOOT, boot);
            marker.write(position);
            mapped.force();
            return marker;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /** Raises the position to {@code logPosition}; call before anything of that entry is sent. */
    public void advance(long logPosition) {
        if (logPosition > position) {
            write(logPosition);
        }
    }

    private void write(long p) {
        int sum = checksum(crc, p, boot);
        for (int copy : COPIES) {
            buffer.putLong(copy, p, ByteOrder.LITTLE_ENDIAN);
            buffer.putIntOrdered(copy + 8, littleEndian(sum));
        }
        position = p;
    }

    private static int littleEndian(int v) {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    }

    private static int checksum(CRC32C crc, long p, byte[] boot) {
        crc.reset();
        for (int i = 0; i < 8; i++) {
            crc.update((int) (p >>> (8 * i)));
        }
        crc.update(boot, 0, boot.length);
        return (int) crc.getValue();
    }

    /** This machine's boot, as 16 bytes; null where the system does not say. */
    private static byte @Nullable [] currentBoot() {
        try {
            UUID id = UUID.fromString(
                    Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim());
            UnsafeBuffer b = new UnsafeBuffer(new byte[16]);
            b.putLong(0, id.getMostSignificantBits());
            b.putLong(8, id.getLeastSignificantBits());
            return b.byteArray();
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }
}
