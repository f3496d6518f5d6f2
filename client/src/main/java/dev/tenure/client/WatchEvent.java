package dev.tenure.client;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * One change a watch delivers, or one item of the current state it started from ({@link
 * #current()}). Revisions increase by one per change the cluster applies (to any name): a watch
 * sees its names' changes in revision order, each once.
 *
 * @param revision the change's revision; for current state, the revision the state was read at
 * @param kind what happened
 * @param name the lock (GRANTED, ENDED, QUEUED, LEFT, PROCLAIMED, DOWNGRADED) or the key (KV_PUT,
 *     KV_DELETED)
 * @param sessionId the holder or the waiter; for a key, the session that holds it as ephemeral (0: none)
 * @param token the lease's fencing token; for a key, the token it was written under (0: unfenced)
 * @param end ENDED: how the lease ended; GRANTED: how the lock's previous lease ended (empty: none)
 * @param previousToken GRANTED: the previous lease's token (0: none)
 * @param shared whether the lease or the wait is shared
 * @param permits GRANTED, QUEUED: how many exclusive leases the lock admits
 * @param version the key's version (KV_PUT: after the put; KV_DELETED: the version deleted)
 * @param at when it happened, in the cluster's time; for current state, since when it holds
 * @param current part of the current state the watch started from, not a change
 * @param value the value the lease publishes: GRANTED, the one its candidate campaigned with (for
 *     current state, the one it publishes now); PROCLAIMED, the new one; empty for a lease that is
 *     not an election's and for every other kind. The array is the record's own
 */
// An opaque payload handed on as read from the wire; equals compares it by its bytes.
@SuppressWarnings("ArrayRecordComponent")
public record WatchEvent(
        long revision,
        Kind kind,
        String name,
        long sessionId,
        long token,
        Optional<LossReason> end,
        long previousToken,
        boolean shared,
        int permits,
        long version,
        Instant at,
        boolean current,
        byte[] value) {

    /** An event without a published value. */
    public WatchEvent(
            long revision,
            Kind kind,
            String name,
            long sessionId,
            long token,
            Optional<LossReason> end,
            long previousToken,
            boolean shared,
            int permits,
            long version,
            Instant at,
            boolean current) {
        this(
                revision,
                kind,
                name,
                sessionId,
                token,
                end,
                previousToken,
                shared,
                permits,
                version,
                at,
                current,
                new byte[0]);
    }

    /** What happened. */
    public enum Kind {
        /** A lease was granted (a grant to a waiting session also takes it off the queue). */
        GRANTED,
        /** A lease ended; {@link WatchEvent#end()} says how. */
        ENDED,
        /** An acquire joined the lock's queue. */
        QUEUED,
        /** A waiter left the queue without a grant (timed out, gave up, its session ended). */
        LEFT,
        /** A key was written. */
        KV_PUT,
        /** A key was deleted. */
        KV_DELETED,
        /** An election's leader published a new {@link WatchEvent#value()}: same lease, same token. */
        PROCLAIMED,
        /** An exclusive lease became shared (same token); the shared grants it admits follow as GRANTED. */
        DOWNGRADED
    }

    /** Every component compared, the value by its bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof WatchEvent e
                && revision == e.revision
                && kind == e.kind
                && name.equals(e.name)
                && sessionId == e.sessionId
                && token == e.token
                && end.equals(e.end)
                && previousToken == e.previousToken
                && shared == e.shared
                && permits == e.permits
                && version == e.version
                && at.equals(e.at)
                && current == e.current
                && Arrays.equals(value, e.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(revision, kind, name, sessionId, token, end, previousToken, shared, permits, version, at)
                + 31 * Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "WatchEvent[revision=" + revision + ", kind=" + kind + ", name=" + name + ", sessionId=" + sessionId
                + ", token=" + token + ", end=" + end + ", previousToken=" + previousToken + ", shared=" + shared
                + ", permits=" + permits + ", version=" + version + ", at=" + at + ", current=" + current
                + ", value=" + value.length + " bytes]";
    }
}
