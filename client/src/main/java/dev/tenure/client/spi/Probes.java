package dev.tenure.client.spi;

import dev.tenure.client.Lease;
import dev.tenure.client.internal.ClientAccess;

/**
 * Internal: what Tenure's own tests read of a lease beyond the API, to compare with readings of
 * their own. Not part of the client's API: the client's module does not export this package, and
 * it may change in any release. An application reads {@link Lease#remaining()}.
 */
public final class Probes {
    private Probes() {}

    /**
     * The lease's horizon as a reading of its client's {@link TimeSource#nanoTime()}: the earlier of
     * its session's and its own. It moves only when a renewal is confirmed.
     */
    public static long horizonNanos(Lease lease) {
        return ClientAccess.bridge().horizonNanos(lease);
    }
}
