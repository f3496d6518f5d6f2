package dev.tenure.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.core.SecretHash;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * Session secrets: made here when a session opens, given to its client once (Opened), and shown
 * by the client with every later request for the session. Only their hash reaches the log, where
 * the state machine compares it with the one the session was opened with (see {@link
 * dev.tenure.core.Command.WithSecret}).
 */
final class SessionSecrets {
    /** 128 bits: guessing one takes as long as guessing an AES key. */
    static final int SECRET_BYTES = 16;
    /** The hash's size on the log: SHA-256 cut to 128 bits, the secret's own strength. */
    static final int HASH_BYTES = 16;

    private final RandomGenerator source;

    /** {@code source}: a SecureRandom, but in the simulation, which draws secrets from its seed. */
    SessionSecrets(RandomGenerator source) {
        this.source = source;
    }

    static SessionSecrets secure() {
        return new SessionSecrets(new SecureRandom());
    }

    ByteString newSecret() {
        byte[] secret = new byte[SECRET_BYTES];
        source.nextBytes(secret);
        return ByteString.copyFrom(secret);
    }

    /** The hash of {@code secret} as the log carries it; an empty secret hashes too (and matches no session's). */
    static ByteString hash(ByteString secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.toByteArray());
            return ByteString.copyFrom(digest, 0, HASH_BYTES);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /** The log's hash as the state machine takes it; empty (an older gateway's command) is none. */
    static SecretHash toCore(ByteString hash) {
        if (hash.size() != HASH_BYTES) {
            return SecretHash.NONE;
        }
        return new SecretHash(
                hash.substring(0, 8).asReadOnlyByteBuffer().getLong(),
                hash.substring(8).asReadOnlyByteBuffer().getLong());
    }
}
