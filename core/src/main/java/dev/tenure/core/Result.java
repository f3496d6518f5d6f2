package dev.tenure.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** What applying a command produced. Results are values; the server maps them to wire codes. */
public sealed interface Result {

    record SessionOpened(long sessionId, long ttlMs) implements Result {}

    /** The session lives and is now carried by attachment {@code attachment}. */
    record SessionResumed(long sessionId, long ttlMs, long attachment) implements Result {}

    /** A resume that expected another attachment: nothing changed; the session is on {@code attachment}. */
    record ResumeSuperseded(long sessionId, long attachment) implements Result {}

    /** The sessions of a keepalive batch that no longer exist; every other one was renewed. */
    record KeepAliveResult(List<Long> lostSessionIds) implements Result {}

    record Granted(Grant grant) implements Result {}

    /** The acquire waits in the lock's FIFO queue; its outcome comes later as an {@link Event.WaitResolved}. */
    record Queued(String lock, long holderToken) implements Result {}

    /**
     * A lease was renewed (RenewLease; keepalives renew sessions). {@code remainingMs}: how long
     * the lease now has before the server ends it on its own (manual deadline or maxHold,
     * whichever is first), counted from the renewal's apply time; -1 when only its session bounds
     * it.
     */
    record LeaseRenewed(long remainingMs) implements Result {}

    /** The command was carried out. */
    record Ok() implements Result {}

    /**
     * A KV put or delete was carried out: {@code version} is the key's version now (a put), or the
     * one it had when it was deleted (a delete).
     */
    record Written(long version) implements Result {}

    /**
     * The command changed nothing.
     *
     * @param currentToken the lock's current token where one is relevant (HELD, NOT_OWNER, STALE_TOKEN);
     *     for VERSION_MISMATCH the key's current version (0: it does not exist); else 0
     */
    record Rejected(Code code, String message, long currentToken) implements Result {}

    // The bytes are an opaque payload the core keeps and hands back as given; wrapping them in an
    // immutable type would cost a copy per write. Nothing compares these records by value.
    @SuppressWarnings("ArrayRecordComponent")
    record KvValue(
            String key,
            byte[] value,
            long token,
            @Nullable String lock,
            long writtenAtMs,
            long version,
            long ephemeralSessionId)
            implements Result {}

    /**
     * A lock's state, as a status read shows it.
     *
     * @param delayUntilMs a lock delay is pending until then (0: none): no grant before it
     * @param checkpoint the lock's last checkpoint, or null
     * @param holder the oldest current lease (the only one of a plain lock), or null
     * @param holders every current lease, oldest first
     * @param permits how many exclusive leases the lock admits at once (1: a plain lock)
     */
    record LockView(
            String lock,
            @Nullable Holder holder,
            List<WaiterView> waiters,
            List<TenureRecord> history,
            long nowMs,
            long delayUntilMs,
            @Nullable Checkpoint checkpoint,
            StaleWrites staleWrites,
            List<Holder> holders,
            int permits)
            implements Result {
        public LockView(
                String lock,
                @Nullable Holder holder,
                List<WaiterView> waiters,
                List<TenureRecord> history,
                long nowMs,
                long delayUntilMs,
                @Nullable Checkpoint checkpoint,
                StaleWrites staleWrites) {
            this(
                    lock,
                    holder,
                    waiters,
                    history,
                    nowMs,
                    delayUntilMs,
                    checkpoint,
                    staleWrites,
                    holder == null ? List.of() : List.of(holder),
                    1);
        }
    }

    /**
     * A page of the lock listing ({@link Command.ListLocks}), in name order.
     *
     * @param more another lock matches after the last one listed: ask again from its name
     * @param nowMs state-machine time at which this page was read
     */
    record LockList(List<LockEntry> locks, boolean more, long nowMs) implements Result {}

    /**
     * One listed lock: its current leases (oldest first; none while free), how many acquires wait
     * for it, and when its pending lock delay ends (0: none).
     */
    record LockEntry(String lock, List<Holder> holders, int waiters, long delayUntilMs) {
        public LockEntry {
            holders = List.copyOf(holders);
        }

        /** The oldest current lease, or null while the lock is free: a plain lock's one holder. */
        public @Nullable Holder holder() {
            return holders.isEmpty() ? null : holders.get(0);
        }
    }

    record Stats(long sessions, long locks, long held, long lastToken, long nowMs, long staleWritesRejected)
            implements Result {}

    /**
     * The current lease of a lock; null in a {@link LockView} when the lock is free.
     *
     * @param endsAtMs when the server ends the lease on its own (manual deadline or maxHold), or
     *     {@link Long#MAX_VALUE} when only its session bounds it
     */
    /**
     * {@code principal}: who the holder's client authenticated as; empty without client
     * certificates. {@code value}: an election leader's published value (NONE: none).
     */
    record Holder(
            long sessionId,
            long token,
            long sinceMs,
            String clientName,
            Policy policy,
            long endsAtMs,
            String principal,
            boolean shared,
            ElectionValue value) {
        public Holder(
                long sessionId,
                long token,
                long sinceMs,
                String clientName,
                Policy policy,
                long endsAtMs,
                String principal,
                boolean shared) {
            this(sessionId, token, sinceMs, clientName, policy, endsAtMs, principal, shared, ElectionValue.NONE);
        }

        public Holder(long sessionId, long token, long sinceMs, String clientName, Policy policy, long endsAtMs) {
            this(sessionId, token, sinceMs, clientName, policy, endsAtMs, "");
        }

        public Holder(
                long sessionId,
                long token,
                long sinceMs,
                String clientName,
                Policy policy,
                long endsAtMs,
                String principal) {
            this(sessionId, token, sinceMs, clientName, policy, endsAtMs, principal, false);
        }
    }

    /** {@code shared}: the waiter asks for a shared lease. {@code value}: a candidate's campaign value. */
    record WaiterView(
            long sessionId, long sinceMs, String clientName, String principal, boolean shared, ElectionValue value) {
        public WaiterView(long sessionId, long sinceMs, String clientName, String principal, boolean shared) {
            this(sessionId, sinceMs, clientName, principal, shared, ElectionValue.NONE);
        }

        public WaiterView(long sessionId, long sinceMs, String clientName) {
            this(sessionId, sinceMs, clientName, "");
        }

        public WaiterView(long sessionId, long sinceMs, String clientName, String principal) {
            this(sessionId, sinceMs, clientName, principal, false);
        }
    }
}
