package dev.tenure.server.cluster;

import dev.tenure.core.Change;
import java.util.List;

/**
 * Hears what this node's replica applies, on the service thread, after each apply: what the
 * node's replicated metrics count. Every replica applies the same log, so every node hears the
 * same changes and terms; only a node's start point differs (a restarted node hears the log after
 * its snapshot again). A listener must not block: the service thread applies nothing meanwhile.
 */
public interface ReplicaListener {

    ReplicaListener NONE = new ReplicaListener() {};

    /** The replica (re)started from a snapshot or an empty state: no tenure before it is known. */
    default void restarted() {}

    /** The changes of one apply, in revision order; the list is reused after the call. */
    default void applied(List<Change> changes) {}

    /** A new leadership term began (an election ended), as every replica applies it. */
    default void newTerm(int leaderMemberId) {}

    /** This replica wrote its state to a snapshot: {@code bytes} in {@code nanos}. */
    default void snapshotWritten(long bytes, long nanos) {}
}
