package dev.tenure.core;

import java.util.List;

/**
 * Tenure's deterministic state machine: sessions, locks with one lease and a FIFO queue of
 * waiters, fencing tokens, request-id dedup, the fenced KV and ownership history.
 *
 * <p>Determinism: it never reads a clock. Time is the timestamp the log gives each command;
 * state-machine time is {@code max(previous, timestamp)}. It iterates only in defined order and
 * its snapshot is an explicit binary format. Invariants are checked after every apply and on
 * snapshot load; a violation throws {@link InvariantViolation}, which must stop the replica.
 *
 * <p>Not thread-safe: one thread applies the log.
 */
public final class StateMachine {

    public StateMachine(Limits limits) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Advances time to {@code timestampMs}, fires every deadline due by then, then applies {@code command}. */
    public Result apply(long timestampMs, Command command) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Advances time to {@code timestampMs} and fires every deadline due by then (session expiry, wait timeouts). */
    public void advance(long timestampMs) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** The earliest pending deadline, or {@link Long#MAX_VALUE} if none; the host sets one timer for it. */
    public long nextDeadlineMs() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /**
     * A new leadership term began at {@code timestampMs}: every session deadline restarts at
     * {@code max(deadline, timestampMs + ttl)}, so a leader whose clock runs ahead never expires a
     * session before its client's horizon.
     */
    public void onNewTerm(long timestampMs) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Moves the events produced since the last call into {@code sink}, in the order they happened. */
    public void drainEvents(List<Event> sink) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public long nowMs() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    public long lastToken() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** The whole state in the versioned binary snapshot format. */
    public byte[] snapshot() {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Rebuilds a state machine from {@link #snapshot()} output and checks every invariant. */
    public static StateMachine restore(byte[] snapshot, Limits limits) {
        throw new UnsupportedOperationException("not yet implemented");
    }

    /** Checks every invariant over the whole state; throws {@link InvariantViolation}. */
    public void checkInvariants() {
        throw new UnsupportedOperationException("not yet implemented");
    }
}
