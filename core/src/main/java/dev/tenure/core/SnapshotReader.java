package dev.tenure.core;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@link SnapshotWriter} output. Every malformed input (truncation, negative or oversized
 * counts, invalid UTF-8) becomes an {@link IllegalArgumentException}, never a partial state.
 */
final class SnapshotReader {
    private final ByteBuffer in;

    SnapshotReader(byte[] bytes, int length) {
        this.in = ByteBuffer.wrap(bytes, 0, length);
    }

    int u8() {
        try {
            return in.get() & 0xff;
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    int i32() {
        try {
            return in.getInt();
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    long i64() {
        try {
            return in.getLong();
        } catch (BufferUnderflowException e) {
            throw truncated();
        }
    }

    boolean bool() {
        int v = u8();
        if (v > 1) {
            throw new IllegalArgumentException("snapshot corrupt: boolean byte " + v);
        }
        return v == 1;
    }

    /** A count of elements of at least {@code minBytesEach} bytes; refuses counts the input cannot hold. */
    int count(int minBytesEach) {
        int n = i32();
        if (n < 0 || (long) n * minBytesEach > in.remaining()) {
            throw new IllegalArgumentException(
                    "snapshot corrupt: count " + n + " with " + in.remaining() + " bytes left");
        }
        return n;
    }

    byte[] bytes() {
        byte[] b = new byte[count(1)];
        in.get(b);
        return b;
    }

    @Nullable
    String string() {
        int n = i32();
        if (n == -1) {
            return null;
        }
        if (n < 0 || n > in.remaining()) {
            throw new IllegalArgumentException("snapshot corrupt: string length " + n);
        }
        ByteBuffer slice = in.slice();
        slice.limit(n);
        in.position(in.position() + n);
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(slice)
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("snapshot corrupt: invalid UTF-8", e);
        }
    }

    String nonNullString() {
        String s = string();
        if (s == null) {
            throw new IllegalArgumentException("snapshot corrupt: unexpected null string");
        }
        return s;
    }

    void expectEnd() {
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("snapshot corrupt: " + in.remaining() + " trailing bytes");
        }
    }

    private static IllegalArgumentException truncated() {
        return new IllegalArgumentException("snapshot truncated");
    }
}
