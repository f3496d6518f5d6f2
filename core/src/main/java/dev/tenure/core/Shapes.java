package dev.tenure.core;

import dev.tenure.core.Result.Rejected;

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

    static Rejected lockName(String lock, Limits limits) {
        return name("lock name", lock, limits.lockNameBytesMax(), "lockNameBytesMax");
    }

    static Rejected key(String key, Limits limits) {
        return name("key", key, limits.keyBytesMax(), "keyBytesMax");
    }

    static Rejected fenceLock(String fenceLock, Limits limits) {
        return fenceLock == null ? null : name("fence lock", fenceLock, limits.lockNameBytesMax(), "lockNameBytesMax");
    }

    static Rejected value(byte[] value, Limits limits) {
        if (value == null) {
            return invalid("value must not be null");
        }
        if (value.length > limits.valueBytesMax()) {
            return invalid("value is " + value.length + " bytes, over valueBytesMax " + limits.valueBytesMax());
        }
        return null;
    }

    static Rejected requestId(long requestId) {
        return requestId > 0 ? null : invalid("requestId must be > 0, was " + requestId);
    }

    static Rejected ttl(long ttlMs, Limits limits) {
        if (ttlMs >= limits.sessionTtlMsMin() && ttlMs <= limits.sessionTtlMsMax()) {
            return null;
        }
        return invalid("ttlMs " + ttlMs + " is outside [sessionTtlMsMin " + limits.sessionTtlMsMin()
                + ", sessionTtlMsMax " + limits.sessionTtlMsMax() + "]");
    }

    static Rejected clientName(String clientName, Limits limits) {
        if (clientName == null) {
            return invalid("clientName must not be null");
        }
        return bytesWithin("clientName", clientName, limits.clientNameBytesMax(), "clientNameBytesMax");
    }

    /** The first non-null rejection, or null. */
    static Rejected first(Rejected... checks) {
        for (Rejected r : checks) {
            if (r != null) {
                return r;
            }
        }
        return null;
    }

    private static Rejected name(String what, String s, int bytesMax, String limitName) {
        if (s == null || s.isEmpty()) {
            return invalid(what + " must not be empty");
        }
        return bytesWithin(what, s, bytesMax, limitName);
    }

    private static Rejected bytesWithin(String what, String s, int bytesMax, String limitName) {
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
