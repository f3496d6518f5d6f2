package dev.tenure.client;

import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.client.internal.WireValues;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A linearizable view of one lock: its holder, its FIFO waiters and its recent ownership history
 * (newest last), taken at state-machine time {@code now}; a pending lock delay, the lock's last
 * checkpoint and the stale writes it rejected. Times are the state machine's (the leader's clock
 * as it ordered each entry).
 *
 * @param delayUntil a lock delay is pending until then; nobody is granted before it
 * @param holder the oldest current lease (a plain lock's only one)
 * @param holders every current lease, oldest first: one for a plain lock, up to {@code permits}
 *     for a semaphore, any number of shared ones
 * @param permits how many exclusive leases the lock admits at once (1: a plain lock)
 */
public record LockStatus(
        String lock,
        Optional<Holder> holder,
        List<Waiter> waiters,
        List<PastTenure> history,
        Instant now,
        Optional<Instant> delayUntil,
        Optional<Checkpoint> checkpoint,
        StaleWrites staleWrites,
        List<Holder> holders,
        int permits) {

    public LockStatus {
        holders = List.copyOf(holders);
        waiters = List.copyOf(waiters);
        history = List.copyOf(history);
    }

    /**
     * The lock's holder: its session, token, since when, and the policy of its grant.
     *
     * @param lockDelay zero when off
     * @param maxHold zero when off
     * @param leaseTtl zero for a lease its session renews (AUTO); else MANUAL with this TTL
     * @param endsAt when the server ends the lease on its own (manual deadline or maxHold); empty
     *     if only its session bounds it
     * @param principal who the holder's client authenticated as (its certificate's CN); empty
     *     without client certificates
     * @param shared one of possibly many shared holders
     * @param value an election leader's published value (empty: none); the array is the record's own
     */
    // An opaque payload handed on as read from the wire; nothing compares these records by value.
    @SuppressWarnings("ArrayRecordComponent")
    public record Holder(
            long sessionId,
            long token,
            Instant since,
            String clientName,
            Duration lockDelay,
            Duration maxHold,
            Duration leaseTtl,
            Optional<Instant> endsAt,
            String principal,
            boolean shared,
            byte[] value) {
        public Holder(
                long sessionId,
                long token,
                Instant since,
                String clientName,
                Duration lockDelay,
                Duration maxHold,
                Duration leaseTtl,
                Optional<Instant> endsAt,
                String principal,
                boolean shared) {
            this(
                    sessionId,
                    token,
                    since,
                    clientName,
                    lockDelay,
                    maxHold,
                    leaseTtl,
                    endsAt,
                    principal,
                    shared,
                    new byte[0]);
        }

        static Holder from(dev.tenure.api.v1.Holder held) {
            return new Holder(
                    held.getSessionId(),
                    held.getToken(),
                    Instant.ofEpochMilli(held.getSinceMs()),
                    held.getClientName(),
                    Duration.ofMillis(held.getPolicy().getLockDelayMs()),
                    Duration.ofMillis(held.getPolicy().getMaxHoldMs()),
                    Duration.ofMillis(held.getPolicy().getLeaseTtlMs()),
                    instant(held.getEndsAtMs()),
                    held.getPrincipal(),
                    held.getShared(),
                    held.getValue().toByteArray());
        }

        /** Every component compared, the value by its bytes. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Holder h
                    && sessionId == h.sessionId
                    && token == h.token
                    && shared == h.shared
                    && since.equals(h.since)
                    && clientName.equals(h.clientName)
                    && lockDelay.equals(h.lockDelay)
                    && maxHold.equals(h.maxHold)
                    && leaseTtl.equals(h.leaseTtl)
                    && endsAt.equals(h.endsAt)
                    && principal.equals(h.principal)
                    && java.util.Arrays.equals(value, h.value);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(sessionId, token, since, clientName, principal, shared)
                    + 31 * java.util.Arrays.hashCode(value);
        }
    }

    /**
     * Writes this lock refused because their token was not its current grant (fenced KV writes,
     * checkpoints, releases), with the last one's tokens, target ({@code kv:KEY}, {@code
     * checkpoint}, {@code release}) and time (empty while {@code count} is 0). Kept by the
     * replicated state: the same on every node.
     */
    public record StaleWrites(
            long count, long lastToken, long lastCurrentToken, String lastTarget, Optional<Instant> lastAt) {
        static final StaleWrites NONE = new StaleWrites(0, 0, 0, "", Optional.empty());
    }

    /**
     * {@code principal} as in {@link Holder}; {@code shared}: the waiter asks for a shared lease;
     * {@code value}: a candidate's campaign value (empty: none).
     */
    // An opaque payload handed on as read from the wire; nothing compares these records by value.
    @SuppressWarnings("ArrayRecordComponent")
    public record Waiter(
            long sessionId, Instant since, String clientName, String principal, boolean shared, byte[] value) {
        /** A waiter for an exclusive lease, without a campaign value. */
        public Waiter(long sessionId, Instant since, String clientName, String principal) {
            this(sessionId, since, clientName, principal, false, new byte[0]);
        }

        /** Every component compared, the value by its bytes. */
        @Override
        public boolean equals(Object o) {
            return o instanceof Waiter w
                    && sessionId == w.sessionId
                    && since.equals(w.since)
                    && clientName.equals(w.clientName)
                    && principal.equals(w.principal)
                    && shared == w.shared
                    && java.util.Arrays.equals(value, w.value);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(sessionId, since, clientName, principal, shared)
                    + 31 * java.util.Arrays.hashCode(value);
        }
    }

    /**
     * One ended tenure: who held the lock, with which token, from when to when, how it ended
     * ({@code end}: RELEASED, EXPIRED, DISCONNECTED or REVOKED).
     *
     * @param forcedBySessionId the session that ended it by a forced release (then {@code end}
     *     is REVOKED), or 0
     * @param forcedByClient that session's client name; empty if not forced
     * @param principal who the holder's client authenticated as; empty without client certificates
     * @param forcedByPrincipal who the forcing session's client authenticated as; empty if not
     *     forced or without client certificates
     */
    public record PastTenure(
            long sessionId,
            long token,
            Instant grantedAt,
            Instant endedAt,
            LossReason end,
            long forcedBySessionId,
            String forcedByClient,
            String principal,
            String forcedByPrincipal) {

        public boolean forced() {
            return forcedBySessionId != 0;
        }
    }

    static LockStatus from(String lock, LockStatusResponse r) {
        Optional<Holder> holder = r.hasHolder() ? Optional.of(Holder.from(r.getHolder())) : Optional.empty();
        // A node without semaphores sends the one holder only.
        List<Holder> holders = r.getHoldersCount() > 0
                ? r.getHoldersList().stream().map(Holder::from).toList()
                : holder.stream().toList();
        List<Waiter> waiters = r.getWaitersList().stream()
                .map(w -> new Waiter(
                        w.getSessionId(),
                        Instant.ofEpochMilli(w.getSinceMs()),
                        w.getClientName(),
                        w.getPrincipal(),
                        w.getShared(),
                        w.getValue().toByteArray()))
                .toList();
        List<PastTenure> history = r.getHistoryList().stream()
                .map(h -> new PastTenure(
                        h.getSessionId(),
                        h.getToken(),
                        Instant.ofEpochMilli(h.getGrantedAtMs()),
                        Instant.ofEpochMilli(h.getEndedAtMs()),
                        LossReason.of(WireValues.tenureEnd(h.getEndValue())),
                        h.getForcedBySessionId(),
                        h.getForcedByClient(),
                        h.getPrincipal(),
                        h.getForcedByPrincipal()))
                .toList();
        String name = r.getLock().isEmpty() ? lock : r.getLock();
        var sw = r.getStaleWrites();
        return new LockStatus(
                name,
                holder,
                waiters,
                history,
                Instant.ofEpochMilli(r.getNowMs()),
                instant(r.getDelayUntilMs()),
                r.hasCheckpoint() ? Optional.of(WireValues.checkpoint(r.getCheckpoint())) : Optional.empty(),
                new StaleWrites(
                        sw.getCount(),
                        sw.getLastToken(),
                        sw.getLastCurrentToken(),
                        sw.getLastTarget(),
                        instant(sw.getLastAtMs())),
                holders,
                Math.max(1, r.getPermits()));
    }

    /** The wire's 0 means none. */
    static Optional<Instant> instant(long epochMs) {
        return epochMs == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(epochMs));
    }
}
