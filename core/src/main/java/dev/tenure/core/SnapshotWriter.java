package dev.tenure.core;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * Big-endian primitives into memory, as {@link SnapshotReader} reads them back.
 *
 * <p>A snapshot can be most of a node's heap (the KV's values are in it), so {@link
 * SnapshotCodec#encode} writes it twice: first into a writer that only counts, then into one of
 * exactly that size, which it returns as is. A growing buffer would hold up to twice the snapshot
 * while it grows and a third copy at the end, and that peak, not the snapshot, is what the heap
 * must have room for.
 */
final class SnapshotWriter {
    private static final int CHECKSUM_BYTES = 4;

    /** Null while only counting. */
    private byte @Nullable [] buf;

    private int size;
    private final boolean growing;

    /** A writer that grows as needed (for tests, which write snapshots by hand). */
    SnapshotWriter() {
        this(new byte[4096], true);
    }

    private SnapshotWriter(byte @Nullable [] buf, boolean growing) {
        this.buf = buf;
        this.growing = growing;
    }

    /** A writer that keeps nothing and counts the bytes written. */
    static SnapshotWriter counting() {
        return new SnapshotWriter(null, false);
    }

    /** A writer for exactly {@code bodyBytes} followed by their checksum. */
    static SnapshotWriter exactly(int bodyBytes) {
        return new SnapshotWriter(new byte[bodyBytes + CHECKSUM_BYTES], false);
    }

    /** The bytes written so far. */
    int size() {
        return size;
    }

    void u8(int v) {
        room(1);
        if (buf != null) {
            buf[size] = (byte) v;
        }
        size++;
    }

    void i32(int v) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            u8(v >>> shift);
        }
    }

    void i64(long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            u8((int) (v >>> shift));
        }
    }

    void bool(boolean v) {
        u8(v ? 1 : 0);
    }

    void bytes(byte[] b) {
        i32(b.length);
        room(b.length);
        if (buf != null) {
            System.arraycopy(b, 0, buf, size, b.length);
        }
        size += b.length;
    }

    /** Length-prefixed UTF-8; length -1 for null. Strings are well-formed (see {@link Shapes}), so this round-trips. */
    void string(@Nullable String s) {
        if (s == null) {
            i32(-1);
        } else {
            bytes(s.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The bytes written so far followed by their CRC32, which catches corruption the parser would miss. */
    byte[] finishWithChecksum() {
        CRC32 crc = new CRC32();
        crc.update(Objects.requireNonNull(buf, "a counting writer is never finished"), 0, size);
        i32((int) crc.getValue());
        byte[] written = Objects.requireNonNull(buf, "i32 keeps a writing writer's buffer");
        return size == written.length ? written : Arrays.copyOf(written, size);
    }

    private void room(int n) {
        if (buf == null || size + n <= buf.length) {
            return;
        }
        if (!growing) {
            throw new IllegalStateException(
                    "snapshot grew while written: " + (size + n) + " bytes, counted " + (buf.length - CHECKSUM_BYTES));
        }
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
    }
}
