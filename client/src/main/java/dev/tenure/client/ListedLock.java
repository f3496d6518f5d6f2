package dev.tenure.client;

import dev.tenure.api.v1.ListLocksResponse;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One lock of a listing ({@link TenureClient#listLocks(String)}): a lock that is held, waited for
 * or in its lock delay. Its history is in {@link TenureClient#status(String)}.
 *
 * @param holder its oldest current lease (a plain lock's one); empty while it is free (then it is
 *     waited for or delayed)
 * @param waiters how many acquires wait for it
 * @param delayUntil a lock delay is pending until then
 * @param holders every current lease, oldest first: a semaphore's or a shared lock's several, a
 *     plain lock's one (then the same as {@code holder}); empty while it is free
 */
public record ListedLock(
        String lock,
        Optional<LockStatus.Holder> holder,
        int waiters,
        Optional<Instant> delayUntil,
        List<LockStatus.Holder> holders) {

    public ListedLock {
        holders = List.copyOf(holders);
    }

    /** A lock with at most one lease: every lease it lists is that one, if any. */
    public ListedLock(String lock, Optional<LockStatus.Holder> holder, int waiters, Optional<Instant> delayUntil) {
        this(lock, holder, waiters, delayUntil, holder.stream().toList());
    }

    /**
     * One page of a listing, in name order, read at state-machine time {@code now}.
     *
     * @param more another lock matches after the last one here: ask for the next page after its name
     */
    public record Page(List<ListedLock> locks, boolean more, Instant now) {
        public Page {
            locks = List.copyOf(locks);
        }

        /** The name the next page starts after: the last lock's here, or {@code after} for an empty page. */
        public String nextAfter(String after) {
            return locks.isEmpty() ? after : locks.get(locks.size() - 1).lock();
        }

        static Page from(ListLocksResponse r) {
            List<ListedLock> locks = r.getLocksList().stream().map(Page::listed).toList();
            return new Page(locks, r.getMore(), Instant.ofEpochMilli(r.getNowMs()));
        }

        private static ListedLock listed(dev.tenure.api.v1.ListedLock l) {
            Optional<LockStatus.Holder> holder =
                    l.hasHolder() ? Optional.of(LockStatus.Holder.from(l.getHolder())) : Optional.empty();
            // A node that lists the holder only sends no holders: that one is all it knows of.
            List<LockStatus.Holder> holders = l.getHoldersCount() > 0
                    ? l.getHoldersList().stream().map(LockStatus.Holder::from).toList()
                    : holder.stream().toList();
            return new ListedLock(
                    l.getLock(), holder, l.getWaiters(), LockStatus.instant(l.getDelayUntilMs()), holders);
        }
    }
}
