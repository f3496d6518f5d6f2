package dev.tenure.core;

import java.util.Arrays;

/**
 * The last checkpoint written to a lock by one of its holders: a small value written under the
 * holder's token (a fenced write, so a stale holder cannot overwrite it), handed to every later
 * grant so that the next owner can resume where the work stopped.
 *
 * @param token the token of the grant that wrote it
 */
// The bytes are an opaque payload the core keeps and hands back as given; wrapping them in an
// immutable type would cost a copy per write. equals and hashCode below compare them by content.
@SuppressWarnings("ArrayRecordComponent")
public record Checkpoint(byte[] value, long token, long writtenAtMs) {

    public Checkpoint {
        value = value.clone();
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    int size() {
        return value.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Checkpoint c
                && token == c.token
                && writtenAtMs == c.writtenAtMs
                && Arrays.equals(value, c.value);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(token) * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Checkpoint[" + Arrays.toString(value) + ", token " + token + ", at " + writtenAtMs + "]";
    }
}
