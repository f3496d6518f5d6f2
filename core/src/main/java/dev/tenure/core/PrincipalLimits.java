package dev.tenure.core;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one principal (the identity a client authenticated as) may hold at once, across all its
 * sessions on the cluster: so that one client, by bug or by intent, cannot take the node's whole
 * capacity from the others. Sessions and writes without a principal (a node without client
 * certificates) are bounded by the node-wide limits only.
 *
 * @param nameBytesMax the longest principal name, in UTF-8 bytes
 * @param sessionsMax live sessions
 * @param leasesMax leases held plus acquires queued, as {@code leasesPerSessionMax} counts them
 * @param waitersMax acquires queued
 * @param kvKeysMax keys of the fenced KV whose last write was the principal's
 * @param kvBytesMax the bytes of those keys, counted as {@code Limits.kvBytesMax} counts them
 * @param checkpointTotalBytesMax the checkpoint bytes of the locks whose last checkpoint the
 *     principal wrote, counted as {@code Limits.checkpointTotalBytesMax} counts them
 *
 * <p>{@code leasesMax} also counts the locks in a lock delay that the principal's leases left:
 * a delayed lock counts against the node's {@code locksMax}, so it counts against whoever caused it.
 */
public record PrincipalLimits(
        int nameBytesMax,
        int sessionsMax,
        int leasesMax,
        int waitersMax,
        int kvKeysMax,
        long kvBytesMax,
        long checkpointTotalBytesMax) {

    /** Each component's name as refusals, options and docs give it. */
    static final Map<String, String> NAMES = new TreeMap<>(Map.of(
            "nameBytesMax", "principalNameBytesMax",
            "sessionsMax", "sessionsPerPrincipalMax",
            "leasesMax", "leasesPerPrincipalMax",
            "waitersMax", "waitersPerPrincipalMax",
            "kvKeysMax", "kvKeysPerPrincipalMax",
            "kvBytesMax", "kvBytesPerPrincipalMax",
            "checkpointTotalBytesMax", "checkpointTotalBytesPerPrincipalMax"));

    public static PrincipalLimits defaults() {
        return new PrincipalLimits(
                256, // nameBytesMax: a certificate's CN is at most 64 characters
                2_000, // sessionsMax: a fifth of the node's sessionsMax
                4_000, // leasesMax: a fifth of what the node's locksMax and waitersMax allow
                2_000, // waitersMax: a fifth of the node's waitersMax
                10_000, // kvKeysMax: a fifth of the node's kvKeysMax
                8L << 20, // kvBytesMax: a quarter of the node's kvBytesMax
                1L << 20); // checkpointTotalBytesMax: a quarter of the node's
    }

    public PrincipalLimits {
        if (nameBytesMax <= 0
                || sessionsMax <= 0
                || leasesMax <= 0
                || waitersMax < 0
                || kvKeysMax < 0
                || kvBytesMax < 0
                || checkpointTotalBytesMax < 0) {
            throw new IllegalArgumentException("principal limits must be positive");
        }
    }
}
