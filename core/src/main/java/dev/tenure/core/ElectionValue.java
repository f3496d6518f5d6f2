package dev.tenure.core;

import java.util.Arrays;

/**
 * The value an election's candidate campaigns with and its leader publishes: opaque bytes that a
 * waiter and then the lease it is granted carry, shown by status. {@link #NONE} (empty) for every
 * acquire that is not a campaign. Immutable (the bytes are copied in and out), compared by content.
 */
public final class ElectionValue {
    public static final ElectionValue NONE = new ElectionValue(new byte[0]);

    private final byte[] bytes;

    private ElectionValue(byte[] bytes) {
        this.bytes = bytes;
    }

    /** {@code bytes} as a value ({@link #NONE} when empty); a copy is kept. */
    public static ElectionValue of(byte[] bytes) {
        return bytes.length == 0 ? NONE : new ElectionValue(bytes.clone());
    }

    /** A copy of the bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    public int size() {
        return bytes.length;
    }

    public boolean isEmpty() {
        return bytes.length == 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ElectionValue v && Arrays.equals(bytes, v.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "ElectionValue[" + bytes.length + " bytes]";
    }
}
