package dev.tenure.core;

import dev.tenure.core.Result.Rejected;
import org.jspecify.annotations.Nullable;

/**
 * Shape checks that need no state: sizes, nulls, request ids. The gateway should refuse such
 * input before the log; the state machine checks again because a replica must never throw on
 * a logged command (a throw would stop every replica at the same entry).
 *
 * <p>Each method returns the rejection, or null when the input is well formed. Strings must be
 * well-formed UTF-16: an unpaired surrogate would encode to '?' in the snapshot, and a restored
 * replica would then know the lock by a different name than the others.
 */
final class Shapes {
    private Shapes() {}

    static Rejected invalid(String message) {
        return new Rejected(Code.INVALID, message, 0);
    }

    static @Nullable Rejected lockName(@Nullable String lock, Limits limits) {
        return name("lock name", lock, limits.lockNameBytesMax(), "lockNameBytesMax");
    }

    static @Nullable Rejected key(@Nullable String key, Limits limits) {
        return name("key", key, limits.keyBytesMax(), "keyBytesMax");
    }

    static @Nullable Rejected fenceLock(@Nullable String fenceLock, Limits limits) {
        return fenceLock == null ? null : name("fence lock", fenceLock, limits.lockNameBytesMax(), "lockNameBytesMax");
    }

    static @Nullable Rejected value(byte[] value, Limits limits) {
        if (value == null) {
            return invalid("value must not be null");
        }
        if (value.length > limits.valueBytesMax()) {
            return invalid("value is " + value.length + " bytes, over valueBytesMax " + limits.valueBytesMax());
        }
        return null;
    }

    static @Nullable Rejected checkpoint(byte[] value, Limits limits) {
        if (value == null) {
            return invalid("checkpoint value must not be null");
        }
        if (value.length > limits.checkpointBytesMax()) {
            return invalid(
                    "checkpoint is " + value.length + " bytes, over checkpointBytesMax " + limits.checkpointBytesMax());
        }
        return null;
    }

    /**
     * A campaign's or a proclaim's value: at most electionValueBytesMax. Only an exclusive acquire
     * of a plain lock carries one: an election has one leader, and a value on one of several
     * leases would let several publish at once.
     */
    static @Nullable Rejected electionValue(ElectionValue value, int permits, boolean shared, Limits limits) {
        if (value == null) {
            return invalid("election value must not be null (empty: none)");
        }
        if (value.size() > limits.electionValueBytesMax()) {
            return invalid("election value is " + value.size() + " bytes, over electionValueBytesMax "
                    + limits.electionValueBytesMax());
        }
        if (!value.isEmpty() && (shared || permits != 1)) {
            return invalid(
                    "an election is exclusive: a value goes with an exclusive acquire of a plain lock (permits 1),"
                            + " not " + (shared ? "a shared one" : "permits " + permits));
        }
        return null;
    }

    /** A renewal's new maxHold: 0 (unchanged) or within the range a grant's maxHold has. */
    static @Nullable Rejected maxHoldExtension(long maxHoldMs, Limits limits) {
        if (maxHoldMs != 0 && (maxHoldMs < limits.sessionTtlMsMin() || maxHoldMs > limits.maxHoldMsMax())) {
            return invalid("maxHoldMs " + maxHoldMs + " is neither 0 nor within [sessionTtlMsMin "
                    + limits.sessionTtlMsMin() + ", maxHoldMsMax " + limits.maxHoldMsMax() + "]");
        }
        return null;
    }

    /** Each policy field is 0 (off) or within its limit; the lease TTL shares the session TTL range. */
    static @Nullable Rejected policy(Policy p, Limits limits) {
        if (p == null) {
            return invalid("policy must not be null");
        }
        if (p.lockDelayMs() < 0 || p.lockDelayMs() > limits.lockDelayMsMax()) {
            return invalid("lockDelayMs " + p.lockDelayMs() + " is outside [0, lockDelayMsMax "
                    + limits.lockDelayMsMax() + "]");
        }
        if (p.maxHoldMs() != 0 && (p.maxHoldMs() < limits.sessionTtlMsMin() || p.maxHoldMs() > limits.maxHoldMsMax())) {
            return invalid("maxHoldMs " + p.maxHoldMs() + " is neither 0 nor within [sessionTtlMsMin "
                    + limits.sessionTtlMsMin() + ", maxHoldMsMax " + limits.maxHoldMsMax() + "]");
        }
        if (p.leaseTtlMs() != 0
                && (p.leaseTtlMs() < limits.sessionTtlMsMin() || p.leaseTtlMs() > limits.sessionTtlMsMax())) {
            return invalid("leaseTtlMs " + p.leaseTtlMs() + " is neither 0 nor within [sessionTtlMsMin "
                    + limits.sessionTtlMsMin() + ", sessionTtlMsMax " + limits.sessionTtlMsMax() + "]");
        }
        return null;
    }

    /**
     * permits within [1, permitsMax]; a shared lease takes no permits; neither a semaphore's lease
     * nor a shared one takes a policy (they end only with their session or a release, so a lock
     * with several leases has no per-lease deadline or lock delay to keep).
     */
    static @Nullable Rejected permits(int permits, boolean shared, Policy policy, Limits limits) {
        if (permits < 1 || permits > limits.permitsMax()) {
            return invalid("permits " + permits + " is outside [1, permitsMax " + limits.permitsMax() + "]");
        }
        if (shared && permits != 1) {
            return invalid("a shared lease takes no permits (was " + permits + "): any number may share a lock");
        }
        if ((shared || permits > 1) && policy != null && !policy.equals(Policy.NONE)) {
            return invalid("lockDelay, maxHold and manual renewal are not supported for "
                    + (shared ? "a shared lease" : "a semaphore (permits " + permits + ")"));
        }
        return null;
    }

    static @Nullable Rejected requestId(long requestId) {
        return requestId > 0 ? null : invalid("requestId must be > 0, was " + requestId);
    }

    static @Nullable Rejected ttl(long ttlMs, Limits limits) {
        if (ttlMs >= limits.sessionTtlMsMin() && ttlMs <= limits.sessionTtlMsMax()) {
            return null;
        }
        return invalid("ttlMs " + ttlMs + " is outside [sessionTtlMsMin " + limits.sessionTtlMsMin()
                + ", sessionTtlMsMax " + limits.sessionTtlMsMax() + "]");
    }

    static @Nullable Rejected clientName(@Nullable String clientName, Limits limits) {
        if (clientName == null) {
            return invalid("clientName must not be null");
        }
        return bytesWithin("clientName", clientName, limits.clientNameBytesMax(), "clientNameBytesMax");
    }

    static @Nullable Rejected principal(@Nullable String principal, Limits limits) {
        if (principal == null) {
            return invalid("principal must not be null");
        }
        return bytesWithin("principal", principal, limits.principal().nameBytesMax(), "principalNameBytesMax");
    }

    /** The first non-null rejection, or null. */
    static @Nullable Rejected first(@Nullable Rejected... checks) {
        for (Rejected r : checks) {
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private static @Nullable Rejected name(String what, @Nullable String s, int bytesMax, String limitName) {
        if (s == null || s.isEmpty()) {
            return invalid(what + " must not be empty");
        }
        return bytesWithin(what, s, bytesMax, limitName);
    }

    private static @Nullable Rejected bytesWithin(String what, String s, int bytesMax, String limitName) {
        long bytes = utf8Length(s);
        if (bytes < 0) {
            return invalid(what + " is not well-formed UTF-16 (unpaired surrogate)");
        }
        if (bytes > bytesMax) {
            return invalid(what + " is " + bytes + " UTF-8 bytes, over " + limitName + " " + bytesMax);
        }
        return null;
    }

    /** The UTF-8 length of {@code s}, or -1 if it holds an unpaired surrogate. */
    static long utf8Length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return -1;
                }
                bytes += 4;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return -1;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
