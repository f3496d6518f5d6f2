package dev.tenure.client;

import dev.tenure.api.v1.LockStatusResponse;
import java.util.List;
import java.util.Optional;

/**
 * A linearizable view of one lock: its holder, its FIFO waiters and its recent ownership history
 * (newest last), taken at state-machine time {@code nowMs}.
 */
public record LockStatus(
        String lock, Optional<Holder> holder, List<Waiter> waiters, List<PastTenure> history, long nowMs) {

    public LockStatus {
        waiters = List.copyOf(waiters);
        history = List.copyOf(history);
    }

    public record Holder(long sessionId, long token, long sinceMs, String clientName) {}

    public record Waiter(long sessionId, long sinceMs, String clientName) {}

    /** One ended tenure: who held the lock, with which token, from when to when, how it ended. */
    public record PastTenure(long sessionId, long token, long grantedAtMs, long endedAtMs, TenureEnd end) {}

    static LockStatus from(String lock, LockStatusResponse r) {
        Optional<Holder> holder = r.hasHolder()
                ? Optional.of(new Holder(
                        r.getHolder().getSessionId(),
                        r.getHolder().getToken(),
                        r.getHolder().getSinceMs(),
                        r.getHolder().getClientName()))
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
                        TenureEnd.from(h.getEnd())))
                .toList();
        String name = r.getLock().isEmpty() ? lock : r.getLock();
        return new LockStatus(name, holder, waiters, history, r.getNowMs());
    }
}
