package dev.tenure.core;

/**
 * Something that happened to a session without a request of its own, produced while applying a
 * command or a timer. The host delivers events to the session's client.
 */
public sealed interface Event {

    /** A queued acquire ended: {@link Result.Granted}, or {@link Result.Rejected} (HELD after its wait timed out, CANCELLED, SESSION_LOST). */
    record WaitResolved(long sessionId, long requestId, Result result) implements Event {}

    /** A lease ended other than by its own release request. */
    record LeaseEnded(long sessionId, String lock, long token, TenureEnd end) implements Event {}

    record SessionEnded(long sessionId, TenureEnd end) implements Event {}
}
