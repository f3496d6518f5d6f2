package dev.tenure.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * The last checkpoint a holder of a lock wrote ({@link Lease#checkpoint(byte[])}), as handed to a
 * later grant: what the work had reached, so the next owner resumes there instead of starting over.
 *
 * @param token the token of the grant that wrote it: compare with {@link Lease#previousToken()} to
 *     tell whether the previous holder wrote it or an earlier one did
 * @param writtenAt server (state-machine) time of the write
 */
// The value is bytes as stored; equals, hashCode and toString below compare and show its content.
@SuppressWarnings("ArrayRecordComponent")
public record Checkpoint(byte[] value, long token, Instant writtenAt) {
    public Checkpoint {
        value = value.clone();
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    /** The value as UTF-8 text (malformed bytes become U+FFFD). */
    public String text() {
        return new String(value, StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Checkpoint c
                && token == c.token
                && writtenAt.equals(c.writtenAt)
                && Arrays.equals(value, c.value);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(token) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Checkpoint[" + value.length + " bytes, token " + token + ", at " + writtenAt + "]";
    }
}
