package dev.tenure.client;

/**
 * Client events, in pairs where they have a start ({@code acquireStart} is followed by exactly one
 * of {@code acquireEnd} / {@code acquireFailed}). A session's events arrive in the order its state
 * changed. Methods run on gRPC or timer threads: return quickly and do not call blocking client
 * methods here (a {@code fence()} waiting for an ack that this very thread must deliver would
 * wait until the horizon). An exception thrown here is logged and ignored.
 */
public interface TenureListener {
    default void sessionStateChanged(Session session, Session.State from, Session.State to) {}

    default void acquireStart(String lock) {}

    default void acquireEnd(Lease lease) {}

    default void acquireFailed(String lock, TenureException failure) {}

    /** A keepalive was not acknowledged in time, or the session's stream broke. */
    default void renewFailed(Session session, Throwable cause) {}

    /** Called once per lease, whenever its {@link Lease#lost()} completes (release included). */
    default void leaseLost(Lease lease, LossReason reason) {}

    /**
     * The connection to {@code endpoint} heard nothing for too long and was replaced by a new
     * one: every session on it resumes (there, or on the next endpoint). {@code why} says what was
     * not answered and for how long. Frequent replacements mean a node or a network too slow for
     * the disconnect grace.
     */
    default void connectionReplaced(String endpoint, String why) {}
}
