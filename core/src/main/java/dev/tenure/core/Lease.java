package dev.tenure.core;

/**
 * The current grant of a lock. It keeps what the grant reported about the previous tenure, so a
 * retried acquire can return the original {@link Grant} unchanged.
 */
record Lease(long sessionId, long token, long grantedAtMs, TenureEnd previousEnd, long previousToken) {

    Grant grant(String lock, long ttlMs) {
        return new Grant(lock, token, sessionId, grantedAtMs, ttlMs, previousEnd, previousToken);
    }
}
