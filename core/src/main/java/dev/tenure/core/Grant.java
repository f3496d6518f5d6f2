package dev.tenure.core;

import org.jspecify.annotations.Nullable;

/**
 * What the holder of a lease is told when it is granted: one lease of one lock to one session,
 * with the fencing token to present on every write and what the lock's previous tenure left. It
 * is a value fixed at the grant. The endpoint maps it field for field onto the wire's
 * {@code Grant}, and the session's request cache keeps it, so a retried acquire is answered with
 * the same value.
 *
 * <p>The state machine builds it from {@code LeaseRecord}, its own record of the lock's current
 * lease. A renewal moves that lease's deadlines in the lock's record; a grant already reported
 * does not change.
 *
 * @param token the fencing token: strictly greater than every token granted before it, for any lock
 * @param grantedAtMs state-machine time of the grant
 * @param ttlMs the holder session's TTL (a lease under manual renewal has its own, in {@code policy})
 * @param previousEnd how the lock's previous tenure ended ({@link TenureEnd#NONE} if there was none)
 * @param previousToken the previous tenure's token, 0 if none
 * @param previousCheckpoint the lock's last checkpoint when it was granted, or null
 * @param policy the policy the acquire asked for
 * @param value the lease's election value as it is now ({@link ElectionValue#NONE}: not a campaign)
 */
public record Grant(
        String lock,
        long token,
        long sessionId,
        long grantedAtMs,
        long ttlMs,
        TenureEnd previousEnd,
        long previousToken,
        @Nullable Checkpoint previousCheckpoint,
        Policy policy,
        ElectionValue value) {
    public Grant(
            String lock,
            long token,
            long sessionId,
            long grantedAtMs,
            long ttlMs,
            TenureEnd previousEnd,
            long previousToken,
            @Nullable Checkpoint previousCheckpoint,
            Policy policy) {
        this(
                lock,
                token,
                sessionId,
                grantedAtMs,
                ttlMs,
                previousEnd,
                previousToken,
                previousCheckpoint,
                policy,
                ElectionValue.NONE);
    }
}
