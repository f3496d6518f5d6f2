package dev.tenure.client;

/**
 * The policy of one grant (see {@link AcquireOptions}), in ms, each 0 when off: what an acquire
 * asks for and what its lease keeps.
 */
record GrantPolicy(long lockDelayMs, long maxHoldMs, long leaseTtlMs) {
    /** A MANUAL lease: it has its own TTL, and the session's keepalives do not renew it. */
    boolean manual() {
        return leaseTtlMs > 0;
    }

    /** The shortest of the policy's own bounds on the lease in ms, 0 if it has none. */
    long boundMs() {
        long b = 0;
        for (long ms : new long[] {maxHoldMs, leaseTtlMs}) {
            if (ms > 0 && (b == 0 || ms < b)) {
                b = ms;
            }
        }
        return b;
    }
}
