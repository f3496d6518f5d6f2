package dev.tenure.core;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/** Big-endian primitives into memory, as {@link SnapshotReader} reads them back. */
final class SnapshotWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(4096);

    void u8(int v) {
        out.write(v);
    }

    void i32(int v) {
        for (int shift = 24; shift >= 0; shift -= 8) {
            out.write(v >>> shift);
        }
    }

    void i64(long v) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            out.write((int) (v >>> shift));
        }
    }

    void bool(boolean v) {
        u8(v ? 1 : 0);
    }

    void bytes(byte[] b) {
        i32(b.length);
        out.write(b, 0, b.length);
    }

    /** Length-prefixed UTF-8; length -1 for null. Strings are well-formed (see {@link Shapes}), so this round-trips. */
    void string(String s) {
        if (s == null) {
            i32(-1);
        } else {
            bytes(s.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** The bytes written so far followed by their CRC32, which catches corruption the parser would miss. */
    byte[] finishWithChecksum() {
        CRC32 crc = new CRC32();
        byte[] body = out.toByteArray();
        crc.update(body);
        i32((int) crc.getValue());
        return out.toByteArray();
    }
}
