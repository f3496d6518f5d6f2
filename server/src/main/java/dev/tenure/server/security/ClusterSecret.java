package dev.tenure.server.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret shared by every member of a cluster, which a cluster client (each node's gateway, and
 * a member that copies its peers' snapshot) proves it holds before the consensus module lets it
 * submit anything (see {@link SecretChallengeAuthenticator}).
 *
 * <p>It is only ever used as an HMAC key: what travels is the answer to a fresh random challenge,
 * never the secret, so a process that reads the UDP traffic between members learns nothing it
 * could connect with.
 */
public final class ClusterSecret {

    /** Fewer bytes than this could be guessed or are a placeholder ("secret"), not a key. */
    public static final int BYTES_MIN = 16;

    /** The length of a challenge: fresh random bytes, so no earlier answer is ever asked for again. */
    static final int CHALLENGE_BYTES = 32;

    private static final String MAC = "HmacSHA256";

    /**
     * Prefixed to every challenge before it is signed, so an answer is an answer to this question
     * only: the same key's HMAC over the same bytes proves nothing in any other protocol.
     */
    private static final byte[] CONTEXT = "tenure cluster client challenge v1\0".getBytes(StandardCharsets.US_ASCII);

    private final byte[] key;

    public ClusterSecret(byte[] key) {
        if (key.length < BYTES_MIN) {
            throw new IllegalArgumentException(
                    "a cluster secret has at least " + BYTES_MIN + " bytes, got " + key.length);
        }
        this.key = key.clone();
    }

    /** HMAC-SHA256 of {@code challenge} under the secret. */
    byte[] answer(byte[] challenge) {
        if (challenge.length != CHALLENGE_BYTES) {
            throw new IllegalArgumentException(
                    "a challenge has " + CHALLENGE_BYTES + " bytes, got " + challenge.length);
        }
        try {
            // A Mac per answer: answers are made on the consensus module's thread and on the
            // clients' threads, once per connection, and a Mac is not thread-safe.
            Mac mac = Mac.getInstance(MAC);
            mac.init(new SecretKeySpec(key, MAC));
            mac.update(CONTEXT);
            return mac.doFinal(challenge);
        } catch (GeneralSecurityException e) {
            // Every Java runtime has HmacSHA256 (it is one of the required algorithms).
            throw new IllegalStateException(MAC + " unavailable", e);
        }
    }

    /** Never the bytes: a config printed in a log or an error must not carry the secret. */
    @Override
    public String toString() {
        return "ClusterSecret[" + key.length + " bytes]";
    }
}
