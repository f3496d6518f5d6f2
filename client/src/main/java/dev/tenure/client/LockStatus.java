package dev.tenure.client;

import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.client.internal.WireValues;
import java.util.List;
import java.util.Optional;

/**
 * A linearizable view of one lock: its holder, its FIFO waiters and its recent ownership history
 * (newest last), taken at state-machine time {@code nowMs}; a pending lock delay, the lock's last
 * checkpoint and the stale writes it rejected.
 *
 * @param delayUntilMs a lock delay is pending until then (0: none); nobody is granted before it
 */
public record LockStatus(
        String lock,
        Optional<Holder> holder,
        List<Waiter> waiters,
        List<PastTenure> history,
        long nowMs,
        long delayUntilMs,
        Optional<Checkpoint> checkpoint,
        StaleWrites staleWrites) {

    public LockStatus {
        waiters = List.copyOf(waiters);
        history = List.copyOf(history);
    }

    /**
     * @param maxHoldMs 0 when off
     * @param leaseTtlMs 0 for a lease its session renews (AUTO); else MANUAL with this TTL
     * @param endsAtMs when the server ends the lease on its own (manual deadline or maxHold); 0 if
     *     only its session bounds it
     * @param principal who the holder's client authenticated as (its certificate's CN); empty
     *     without client certificates
     */
    public record Holder(
            long sessionId,
            long token,
            long sinceMs,
            String clientName,
            long lockDelayMs,
            long maxHoldMs,
            long leaseTtlMs,
            long endsAtMs,
            String principal) {

        /** A holder without a principal. */
        public Holder(
                long sessionId,
                long token,
                long sinceMs,
                String clientName,
                long lockDelayMs,
                long maxHoldMs,
                long leaseTtlMs,
                long endsAtMs) {
            this(sessionId, token, sinceMs, clientName, lockDelayMs, maxHoldMs, leaseTtlMs, endsAtMs, "");
        }
    }

    /**
     * Writes this lock refused because their token was not its current grant (fenced KV writes,
     * checkpoints, releases), with the last one's tokens, target ({@code kv:KEY}, {@code
     * checkpoint}, {@code release}) and time. Kept by the replicated state: the same on every node.
     */
    public record StaleWrites(long count, long lastToken, long lastCurrentToken, String lastTarget, long lastAtMs) {
        static final StaleWrites NONE = new StaleWrites(0, 0, 0, "", 0);
    }

    /** {@code principal} as in {@link Holder}. */
    public record Waiter(long sessionId, long sinceMs, String clientName, String principal) {
        /** A waiter without a principal. */
        public Waiter(long sessionId, long sinceMs, String clientName) {
            this(sessionId, sinceMs, clientName, "");
        }
    }

    /**
     * One ended tenure: who held the lock, with which token, from when to when, how it ended.
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
            long grantedAtMs,
            long endedAtMs,
            TenureEnd end,
            long forcedBySessionId,
            String forcedByClient,
            String principal,
            String forcedByPrincipal) {

        public PastTenure(long sessionId, long token, long grantedAtMs, long endedAtMs, TenureEnd end) {
            this(sessionId, token, grantedAtMs, endedAtMs, end, 0, "");
        }

        /** A tenure of sessions without principals. */
        public PastTenure(
                long sessionId,
                long token,
                long grantedAtMs,
                long endedAtMs,
                TenureEnd end,
                long forcedBySessionId,
                String forcedByClient) {
            this(sessionId, token, grantedAtMs, endedAtMs, end, forcedBySessionId, forcedByClient, "", "");
        }

        public boolean forced() {
            return forcedBySessionId != 0;
        }
    }

    static LockStatus from(String lock, LockStatusResponse r) {
        var held = r.getHolder();
        Optional<Holder> holder = r.hasHolder()
                ? Optional.of(new Holder(
                        held.getSessionId(),
                        held.getToken(),
                        held.getSinceMs(),
                        held.getClientName(),
                        held.getPolicy().getLockDelayMs(),
                        held.getPolicy().getMaxHoldMs(),
                        held.getPolicy().getLeaseTtlMs(),
                        held.getEndsAtMs(),
                        held.getPrincipal()))
                : Optional.empty();
        List<Waiter> waiters = r.getWaitersList().stream()
                .map(w -> new Waiter(w.getSessionId(), w.getSinceMs(), w.getClientName(), w.getPrincipal()))
                .toList();
        List<PastTenure> history = r.getHistoryList().stream()
                .map(h -> new PastTenure(
                        h.getSessionId(),
                        h.getToken(),
                        h.getGrantedAtMs(),
                        h.getEndedAtMs(),
                        WireValues.tenureEnd(h.getEndValue()),
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
                r.getNowMs(),
                r.getDelayUntilMs(),
                r.hasCheckpoint() ? Optional.of(WireValues.checkpoint(r.getCheckpoint())) : Optional.empty(),
                new StaleWrites(
                        sw.getCount(),
                        sw.getLastToken(),
                        sw.getLastCurrentToken(),
                        sw.getLastTarget(),
                        sw.getLastAtMs()));
    }
}
