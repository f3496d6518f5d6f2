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
     */
    public record Holder(
            long sessionId,
            long token,
            long sinceMs,
            String clientName,
            long lockDelayMs,
            long maxHoldMs,
            long leaseTtlMs,
            long endsAtMs) {}

    /**
     * Writes this lock refused because their token was not its current grant (fenced KV writes,
     * checkpoints, releases), with the last one's tokens, target ({@code kv:KEY}, {@code
     * checkpoint}, {@code release}) and time. Kept by the replicated state: the same on every node.
     */
    public record StaleWrites(long count, long lastToken, long lastCurrentToken, String lastTarget, long lastAtMs) {
        static final StaleWrites NONE = new StaleWrites(0, 0, 0, "", 0);
    }

    public record Waiter(long sessionId, long sinceMs, String clientName) {}

    /**
     * One ended tenure: who held the lock, with which token, from when to when, how it ended.
     *
     * @param forcedBySessionId the session that ended it by a forced release (then {@code end}
     *     is REVOKED), or 0
     * @param forcedByClient that session's client name; empty if not forced
     */
    public record PastTenure(
            long sessionId,
            long token,
            long grantedAtMs,
            long endedAtMs,
            TenureEnd end,
            long forcedBySessionId,
            String forcedByClient) {

        public PastTenure(long sessionId, long token, long grantedAtMs, long endedAtMs, TenureEnd end) {
            this(sessionId, token, grantedAtMs, endedAtMs, end, 0, "");
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
                        held.getEndsAtMs()))
                : Optional.empty();
        List<Waiter> waiters = r.getWaitersList().stream()
                .map(w -> new Waiter(w.getSessionId(), w.getSinceMs(), w.getClientName()))
                .toList();
        List<PastTenure> history = r.getHistoryList().stream()
                .map(h -> new PastTenure(
                        h.getSessionId(),
                        h.getToken(),
                        h.getGrantedAtMs(),
                        h.getEndedAtMs(),
                        WireValues.tenureEnd(h.getEndValue()),
                        h.getForcedBySessionId(),
                        h.getForcedByClient()))
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
