package dev.tenure.core;

/**
 * Every bound the state machine keeps. All members of a cluster must run with the same limits:
 * they decide outcomes at apply time, so differing limits would make replicas diverge.
 * Units are last in each name.
 */
public record Limits(
        long sessionTtlMsMin,
        long sessionTtlMsMax,
        int lockNameBytesMax,
        int keyBytesMax,
        int valueBytesMax,
        int clientNameBytesMax,
        int sessionsMax,
        int leasesPerSessionMax,
        int waitersPerLockMax,
        int kvKeysMax,
        int requestIdCacheMax,
        int historyPerLockMax,
        int idleLocksMax,
        long lockDelayMsMax,
        long maxHoldMsMax,
        int checkpointBytesMax,
        PrincipalLimits principal) {

    public static Limits defaults() {
        return new Limits(
                200, // sessionTtlMsMin
                3_600_000, // sessionTtlMsMax: one hour
                256, // lockNameBytesMax
                512, // keyBytesMax
                64 * 1024, // valueBytesMax
                128, // clientNameBytesMax
                100_000, // sessionsMax
                1_000, // leasesPerSessionMax
                1_000, // waitersPerLockMax
                100_000, // kvKeysMax
                32, // requestIdCacheMax: outcomes remembered per session for retries
                16, // historyPerLockMax: past tenures kept per lock
                10_000, // idleLocksMax: free locks kept for their history
                600_000, // lockDelayMsMax: ten minutes
                7 * 86_400_000L, // maxHoldMsMax: a week
                16 * 1024, // checkpointBytesMax
                PrincipalLimits.defaults());
    }

    public Limits {
        if (sessionTtlMsMin <= 0 || sessionTtlMsMax < sessionTtlMsMin) {
            throw new IllegalArgumentException("session TTL range must be positive and ordered");
        }
        if (lockNameBytesMax <= 0 || keyBytesMax <= 0 || valueBytesMax < 0 || clientNameBytesMax < 0) {
            throw new IllegalArgumentException("size limits must be positive");
        }
        if (sessionsMax <= 0 || leasesPerSessionMax <= 0 || waitersPerLockMax < 0 || kvKeysMax < 0) {
            throw new IllegalArgumentException("count limits must be positive");
        }
        if (requestIdCacheMax <= 0 || historyPerLockMax < 0 || idleLocksMax < 0) {
            throw new IllegalArgumentException("cache limits must be positive");
        }
        if (lockDelayMsMax < 0 || maxHoldMsMax < sessionTtlMsMin || checkpointBytesMax < 0) {
            throw new IllegalArgumentException(
                    "policy limits must be non-negative and maxHoldMsMax at least sessionTtlMsMin");
        }
    }
}
