package dev.tenure.core;

/**
 * What one KV key counts against the byte budgets: {@code bytes} as {@code kvBytesMax} counts
 * them, against the quota of {@code principal} (empty: none, a write without a certificate).
 */
public record KvCharge(long bytes, String principal) {

    /** The keys and bytes one principal holds, as its quota counts them. */
    public record Held(long keys, long bytes) {}
}
