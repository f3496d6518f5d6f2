package dev.tenure.core;

/**
 * One lease of one lock to one session, as reported to its holder.
 *
 * @param token the fencing token: strictly greater than every token granted before it, for any lock
 * @param previousEnd how the lock's previous tenure ended ({@link TenureEnd#NONE} if there was none)
 * @param previousToken the previous tenure's token, 0 if none
 * @param previousCheckpoint the lock's last checkpoint when it was granted, or null
 * @param policy the policy the acquire asked for
 */
public record Grant(
        String lock,
        long token,
        long sessionId,
        long grantedAtMs,
        long ttlMs,
        TenureEnd previousEnd,
        long previousToken,
        Checkpoint previousCheckpoint,
        Policy policy) {}
