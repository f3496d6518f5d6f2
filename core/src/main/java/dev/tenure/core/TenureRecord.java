package dev.tenure.core;

/**
 * One past tenure of a lock, kept in its bounded ownership history. A forced release (another
 * session ended the lease) names the forcing session and its client name; otherwise
 * {@code forcedBySessionId} is 0 and {@code forcedByClient} is empty.
 */
public record TenureRecord(
        long sessionId,
        long token,
        long grantedAtMs,
        long endedAtMs,
        TenureEnd end,
        long forcedBySessionId,
        String forcedByClient) {

    /** A tenure that ended without a forced release. */
    public TenureRecord(long sessionId, long token, long grantedAtMs, long endedAtMs, TenureEnd end) {
        this(sessionId, token, grantedAtMs, endedAtMs, end, 0, "");
    }

    public boolean forced() {
        return forcedBySessionId != 0;
    }
}
