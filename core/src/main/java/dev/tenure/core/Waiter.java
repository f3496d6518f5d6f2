package dev.tenure.core;

/**
 * One queued acquire, with the policy its grant will run under. {@link #NEVER} as deadline means
 * it waits until granted or its session ends. {@code shared}: it asks for a shared lease.
 * {@code value}: a candidate's campaign value, which its lease will carry (NONE: not a campaign).
 */
record Waiter(
        long sessionId,
        long requestId,
        long sinceMs,
        long deadlineMs,
        Policy policy,
        boolean shared,
        ElectionValue value) {
    static final long NEVER = Long.MAX_VALUE;

    Waiter(long sessionId, long requestId, long sinceMs, long deadlineMs, Policy policy, boolean shared) {
        this(sessionId, requestId, sinceMs, deadlineMs, policy, shared, ElectionValue.NONE);
    }

    Waiter(long sessionId, long requestId, long sinceMs, long deadlineMs, Policy policy) {
        this(sessionId, requestId, sinceMs, deadlineMs, policy, false);
    }

    boolean bounded() {
        return deadlineMs != NEVER;
    }

    boolean is(long otherSessionId, long otherRequestId) {
        return sessionId == otherSessionId && requestId == otherRequestId;
    }
}
