package dev.tenure.core;

/**
 * Something that happened to a session without a request of its own, produced while applying a
 * command or a timer. The host delivers events to the session's client.
 */
public sealed interface Event {

    /**
     * A queued acquire ended: {@link Result.Granted}, or {@link Result.Rejected} (HELD after its
     * wait timed out, CANCELLED, SESSION_LOST). {@code attempt}: the latest try of the request the
     * log had applied when its wait ended (0: none after the first). A gateway holding a later try,
     * not yet applied, does not take this answer for it: a withdrawal of the earlier try may still
     * come first in the log and end the grant (see SessionRegistry in the gateway).
     */
    record WaitResolved(long sessionId, long requestId, Result result, long attempt) implements Event {
        public WaitResolved(long sessionId, long requestId, Result result) {
            this(sessionId, requestId, result, 0);
        }
    }

    /** A lease ended other than by its own release request. */
    record LeaseEnded(long sessionId, String lock, long token, TenureEnd end) implements Event {}

    record SessionEnded(long sessionId, TenureEnd end) implements Event {}
}
