package dev.tenure.core;

import java.util.List;

/**
 * Everything that can change or read the state machine. Each command is applied at the
 * timestamp the log gave it; none carries a clock reading of its own.
 *
 * <p>Request ids: a mutating command from a session carries an id that is unique within the
 * session; the state machine remembers recent outcomes per session, so a retry with the same id
 * returns the original outcome instead of acting twice. An id of 0 opts out (no session).
 */
public sealed interface Command {

    record OpenSession(long ttlMs, String clientName) implements Command {}

    /** Renews every listed session: their deadlines move to now + TTL. */
    record KeepAlive(List<Long> sessionIds) implements Command {}

    /**
     * Ends a session. {@code end} is {@link TenureEnd#RELEASED} when the client closed it and
     * {@link TenureEnd#DISCONNECTED} when its connection closed; its leases end the same way.
     */
    record CloseSession(long sessionId, TenureEnd end) implements Command {}

    /** waitMs: 0 do not wait, &gt; 0 wait up to that long, &lt; 0 wait until granted or the session ends. */
    record Acquire(long sessionId, long requestId, String lock, long waitMs) implements Command {}

    /** Gives up a queued acquire (its client stopped waiting). */
    record CancelWait(long sessionId, long requestId) implements Command {}

    /**
     * Compare-and-delete: ends the lease only if {@code token} is the lock's current grant and,
     * unless {@code anySession}, the caller's session holds it.
     */
    record Release(long sessionId, long requestId, String lock, long token, boolean anySession) implements Command {}

    /** A write; when {@code fenceLock} is not null, accepted only if {@code fenceToken} is that lock's current grant. */
    record Put(long sessionId, long requestId, String key, byte[] value, String fenceLock, long fenceToken)
            implements Command {}

    record Delete(long sessionId, long requestId, String key, String fenceLock, long fenceToken) implements Command {}

    /** A read through the log, so it is linearizable. */
    record Get(String key) implements Command {}

    record Status(String lock) implements Command {}

    record Stats() implements Command {}
}
