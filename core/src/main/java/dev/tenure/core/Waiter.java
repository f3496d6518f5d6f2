package dev.tenure.core;

/**
 * One queued acquire, with the policy its grant will run under. {@link #NEVER} as deadline means
 * it waits until granted or its session ends. {@code shared}: it asks for a shared lease.
 */
record Waiter(long sessionId, long requestId, long sinceMs, long deadlineMs, Policy policy, boolean shared) {
    static final long NEVER = Long.MAX_VALUE;

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
