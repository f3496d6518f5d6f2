package dev.tenure.server.cluster;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The first 8 bytes of the SHA-256 of a snapshot: equal states, equal digests. */
final class StateDigest {
    private StateDigest() {}

    static long of(byte[] snapshot) {
        try {
            return ByteBuffer.wrap(MessageDigest.getInstance("SHA-256").digest(snapshot))
                    .getLong();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
