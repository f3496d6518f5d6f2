package dev.tenure.core;

/**
 * One past tenure of a lock, kept in its bounded ownership history. A forced release (another
 * session ended the lease) names the forcing session and its client name; otherwise
 * {@code forcedBySessionId} is 0 and {@code forcedByClient} is empty. {@code principal} and
 * {@code forcedByPrincipal}: who the holder's and the forcer's clients authenticated as (empty
 * without client certificates).
 */
public record TenureRecord(
        long sessionId,
        long token,
        long grantedAtMs,
        long endedAtMs,
        TenureEnd end,
        long forcedBySessionId,
        String forcedByClient,
        String principal,
        String forcedByPrincipal) {

    /** A tenure that ended without a forced release, of a session without a principal. */
    public TenureRecord(long sessionId, long token, long grantedAtMs, long endedAtMs, TenureEnd end) {
        this(sessionId, token, grantedAtMs, endedAtMs, end, 0, "");
    }

    /** A tenure of sessions without a principal. */
    public TenureRecord(
            long sessionId,
            long token,
            long grantedAtMs,
            long endedAtMs,
            TenureEnd end,
            long forcedBySessionId,
            String forcedByClient) {
        this(sessionId, token, grantedAtMs, endedAtMs, end, forcedBySessionId, forcedByClient, "", "");
    }

    public boolean forced() {
        return forcedBySessionId != 0;
    }
}
