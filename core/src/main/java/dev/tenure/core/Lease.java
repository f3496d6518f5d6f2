package dev.tenure.core;

/**
 * The current grant of a lock. It keeps what the grant reported about the previous tenure, so a
 * retried acquire can return the original {@link Grant} unchanged. Its deadlines live in the
 * {@link LockRecord}, which changes them on renewal.
 */
record Lease(
        long sessionId,
        long token,
        long grantedAtMs,
        TenureEnd previousEnd,
        long previousToken,
        Checkpoint previousCheckpoint,
        Policy policy) {

    Grant grant(String lock, long ttlMs) {
        return new Grant(
                lock, token, sessionId, grantedAtMs, ttlMs, previousEnd, previousToken, previousCheckpoint, policy);
    }
}
