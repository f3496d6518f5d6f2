package dev.tenure.server.cluster;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** The first 8 bytes of the SHA-256 of a snapshot: equal states, equal digests. */
final class StateDigest {
    /**
     * Cluster time between two digests at least. One encodes the whole state (32 MiB of values
     * at the default limits) on the state machine's thread: paced, a client that asks for one in
     * every status read costs the replicas a bounded share of that thread.
     */
    static final long INTERVAL_MS = 5_000;

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
