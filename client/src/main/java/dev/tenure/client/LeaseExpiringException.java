package dev.tenure.client;

import java.time.Duration;

/**
 * The lease is still valid but has less time left than the caller asked for, even after a
 * renewal: the mutation should not start.
 */
public class LeaseExpiringException extends TenureException {
    private final Duration remaining;
    private final Duration needed;

    LeaseExpiringException(String lock, long token, Duration remaining, Duration needed) {
        super("lease of '" + lock + "' (token " + token + ") has " + remaining.toMillis() + " ms left, "
                + needed.toMillis() + " ms needed");
        this.remaining = remaining;
        this.needed = needed;
    }

    public Duration remaining() {
        return remaining;
    }

    public Duration needed() {
        return needed;
    }
}
