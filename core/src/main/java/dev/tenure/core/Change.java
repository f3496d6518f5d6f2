package dev.tenure.core;

/**
 * One change to what a watcher can see, recorded as the state machine applies it: a lease granted,
 * downgraded or ended, an election's value proclaimed, a waiter queued or gone, a key put or
 * deleted. Every change takes the next value of
 * the replicated revision counter ({@link StateMachine#revision()}), so replicas that applied the
 * same log number the same changes alike, and a watcher that resumes after revision R misses and
 * repeats nothing.
 *
 * <p>Fields a kind does not use are 0, false or {@link TenureEnd#NONE}. New kinds are appended to
 * {@link Kind}, new fields added at the end, so what a watcher already reads keeps its meaning.
 *
 * <p>An election's observer follows its leader through these alone: every term is one GRANTED
 * (with the value the leader campaigned with) and every value it publishes after is one
 * PROCLAIMED, so the sequence of a name's changes is the sequence of its leaders and values.
 *
 * @param revision the counter's value for this change: one more than the change before it
 * @param kind what happened
 * @param name the lock (GRANTED, ENDED, QUEUED, LEFT, PROCLAIMED, DOWNGRADED) or the key (KV_PUT,
 *     KV_DELETED)
 * @param sessionId the holder (GRANTED, ENDED, PROCLAIMED, DOWNGRADED) or the waiter (QUEUED,
 *     LEFT); for a key, the session that holds it as ephemeral (0: none)
 * @param token the lease's fencing token (GRANTED, ENDED, PROCLAIMED, DOWNGRADED); for a key, the
 *     token it was written under (0: unfenced)
 * @param end how the lease ended (ENDED), or how the lock's previous lease ended (GRANTED)
 * @param previousToken the token of the lock's previous lease (GRANTED; 0: none)
 * @param shared whether the lease or the wait is a shared one (DOWNGRADED: true, the lease is
 *     shared from now on)
 * @param permits how many exclusive leases the lock admits (GRANTED, QUEUED)
 * @param version the key's version (KV_PUT: after the put; KV_DELETED: the version deleted)
 * @param atMs state-machine time of the change
 * @param value the value the lease publishes (GRANTED: the one it campaigned with; PROCLAIMED: the
 *     new one); {@link ElectionValue#NONE} for a lease that is not an election's and every other kind
 */
public record Change(
        long revision,
        Kind kind,
        String name,
        long sessionId,
        long token,
        TenureEnd end,
        long previousToken,
        boolean shared,
        int permits,
        long version,
        long atMs,
        ElectionValue value) {

    /** What happened. Appended to, never reordered: the wire maps each by name. */
    public enum Kind {
        /** A lease was granted. A grant to a waiting session also takes it off the queue (no LEFT). */
        GRANTED,
        /** A lease ended: {@link Change#end()} says how. */
        ENDED,
        /** An acquire joined the lock's queue. */
        QUEUED,
        /** A waiter left the queue without a grant: it timed out, gave up, or its session ended. */
        LEFT,
        /** A key was written. */
        KV_PUT,
        /** A key was deleted (by a delete, or because its ephemeral session ended). */
        KV_DELETED,
        /** An election's leader published a new value: same lease, same token, same term. */
        PROCLAIMED,
        /**
         * An exclusive lease became shared (same token, same grant); shared waiters it now admits
         * follow as GRANTED.
         */
        DOWNGRADED
    }

    static Change granted(long revision, LockRecord lock, LeaseRecord lease, long atMs) {
        return new Change(
                revision,
                Kind.GRANTED,
                lock.name,
                lease.sessionId(),
                lease.token(),
                lease.previousEnd(),
                lease.previousToken(),
                lease.shared(),
                lock.permits,
                0,
                atMs,
                lease.value());
    }

    static Change ended(long revision, LockRecord lock, LeaseRecord lease, TenureEnd end, long atMs) {
        return new Change(
                revision,
                Kind.ENDED,
                lock.name,
                lease.sessionId(),
                lease.token(),
                end,
                0,
                lease.shared(),
                0,
                0,
                atMs,
                ElectionValue.NONE);
    }

    /** PROCLAIMED or DOWNGRADED: the lease as it is after the command. */
    static Change leaseChanged(long revision, Kind kind, LockRecord lock, LeaseRecord lease, long atMs) {
        return new Change(
                revision,
                kind,
                lock.name,
                lease.sessionId(),
                lease.token(),
                TenureEnd.NONE,
                0,
                lease.shared(),
                0,
                0,
                atMs,
                kind == Kind.PROCLAIMED ? lease.value() : ElectionValue.NONE);
    }

    static Change waiting(long revision, Kind kind, LockRecord lock, Waiter w, long atMs) {
        return new Change(
                revision,
                kind,
                lock.name,
                w.sessionId(),
                0,
                TenureEnd.NONE,
                0,
                w.shared(),
                lock.permits,
                0,
                atMs,
                ElectionValue.NONE);
    }

    static Change key(long revision, Kind kind, FencedKv.Entry e, long atMs) {
        return new Change(
                revision,
                kind,
                e.key(),
                e.ephemeralSessionId(),
                e.token(),
                TenureEnd.NONE,
                0,
                false,
                0,
                e.version(),
                atMs,
                ElectionValue.NONE);
    }
}
