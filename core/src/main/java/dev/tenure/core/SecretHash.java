package dev.tenure.core;

/**
 * The hash of a session's secret (128 bits of SHA-256, computed by the gateway): what a request
 * must show to act for the session. The secret itself never reaches the log or a snapshot, so
 * neither a copy of a node's data nor a read of its log lets anyone act for a session; a session
 * id alone (they are sequential, and shown by lock status) lets no one.
 *
 * <p>{@link #NONE}: a session opened without a secret (an older gateway, or the core's own
 * tests); it accepts any request, as every session did before secrets.
 */
public record SecretHash(long hi, long lo) {
    public static final SecretHash NONE = new SecretHash(0, 0);

    /** Compares every bit whatever the first difference, so the time taken says nothing of the hash. */
    boolean sameAs(SecretHash other) {
        return ((hi ^ other.hi) | (lo ^ other.lo)) == 0;
    }
}
