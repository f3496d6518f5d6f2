package dev.tenure.core;

/**
 * What one principal (the identity a client authenticated as) may hold at once, across all its
 * sessions on the cluster: so that one client, by bug or by intent, cannot take the node's whole
 * capacity from the others. Sessions without a principal (a node without client certificates)
 * are bounded by the node-wide limits only.
 *
 * @param nameBytesMax the longest principal name, in UTF-8 bytes
 * @param sessionsMax live sessions
 * @param leasesMax leases held plus acquires queued, as {@code leasesPerSessionMax} counts them
 * @param waitersMax acquires queued
 */
public record PrincipalLimits(int nameBytesMax, int sessionsMax, int leasesMax, int waitersMax) {

    public static PrincipalLimits defaults() {
        return new PrincipalLimits(
                256, // nameBytesMax: a certificate's CN is at most 64 characters
                20_000, // sessionsMax: a fifth of the node's sessionsMax
                100_000, // leasesMax
                20_000); // waitersMax
    }

    public PrincipalLimits {
        if (nameBytesMax <= 0 || sessionsMax <= 0 || leasesMax <= 0 || waitersMax < 0) {
            throw new IllegalArgumentException("principal limits must be positive");
        }
    }
}
