package dev.tenure.core;

/**
 * What the acquirer asks of one grant. It travels with each acquire and applies to the grant that
 * acquire produces (not to the lock forever): two holders of one lock may run under different
 * policies. A zero field means "off".
 *
 * @param lockDelayMs when this grant ends EXPIRED, DISCONNECTED or REVOKED (not after a clean
 *     RELEASED), the lock is granted to no one for this long: storage that cannot check tokens gets
 *     time for the old holder's in-flight writes to land or fail
 * @param maxHoldMs the grant is revoked this long after it was made, renewed or not
 * @param leaseTtlMs 0: the lease lives as long as its session (renewed by the session's
 *     keepalives). &gt; 0: manual renewal: the lease expires unless renewed (RenewLease) within this
 *     long, while the session lives on
 */
public record Policy(long lockDelayMs, long maxHoldMs, long leaseTtlMs) {
    public static final Policy NONE = new Policy(0, 0, 0);

    /**
     * The policy with these fields; all zero is the shared {@link #NONE}, so the many leases that
     * ask for nothing special do not each carry a copy (40 B a lease).
     */
    public static Policy of(long lockDelayMs, long maxHoldMs, long leaseTtlMs) {
        return lockDelayMs == 0 && maxHoldMs == 0 && leaseTtlMs == 0
                ? NONE
                : new Policy(lockDelayMs, maxHoldMs, leaseTtlMs);
    }

    public boolean manualRenew() {
        return leaseTtlMs > 0;
    }

    /** The lease can end by a deadline of its own (maxHold, manual renewal), not only with its session. */
    public boolean bounded() {
        return maxHoldMs > 0 || leaseTtlMs > 0;
    }
}
