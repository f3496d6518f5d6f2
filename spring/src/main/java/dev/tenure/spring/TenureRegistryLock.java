package dev.tenure.spring;

import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.TenureLock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock a {@link TenureLockRegistry} hands out for one key: a {@link TenureLock} (re-entrant
 * per thread with a hold count, the first hold of a thread acquiring a lease on the registry's
 * session, the unlock that brings the count to zero releasing it) and a {@link DistributedLock}
 * whose {@code ttl} is the lease's maxHold. Threads of the registry queue here (fairly) before
 * they ask the cluster, since the cluster grants a session's repeated acquire of one name as the
 * same lease.
 *
 * <p>A ttl is a hard bound, not a lease TTL: the lease is renewed with the session as long as the
 * process lives, and the cluster revokes it {@code ttl} after the grant even if the thread still
 * holds it; from then on {@link #fence(Duration)} throws, {@link #invalidated()} has completed,
 * and fenced stores refuse its token. Without a ttl the hold lasts until unlock or until the
 * session is lost. {@link TenureLockRegistry#renewLock(Object, Duration)} moves the bound later.
 *
 * <p>What this class adds to {@link TenureLock}: the ttl as a per-hold policy, the registry's
 * session (opened again once lost) for each new hold, and the registry's observer (metrics).
 */
public final class TenureRegistryLock implements DistributedLock {

    private static final AcquireOptions NO_TTL = AcquireOptions.builder().build();

    private final TenureLockRegistry registry;
    private final TenureLock lock;
    /** When the calling thread's hold began; written and read by the holding thread only. */
    private long heldSinceNanos;
    /** For {@link TenureLockRegistry#expireUnusedOlderThan}: when a thread last locked or unlocked. */
    private volatile long lastUsedMillis = System.currentTimeMillis();

    TenureRegistryLock(TenureLockRegistry registry, String name) {
        this.registry = registry;
        this.lock = TenureLock.onSessions(name, NO_TTL, registry::session);
    }

    /** The key this lock was obtained for: the lock's name on the cluster. */
    public String name() {
        return lock.name();
    }

    @Override
    public void lock() {
        long start = System.nanoTime();
        lock.lock(NO_TTL);
        held(start);
    }

    /** As {@link #lock()}, the lease revoked {@code ttl} after its grant (its maxHold). */
    @Override
    public void lock(Duration ttl) {
        long start = System.nanoTime();
        lock.lock(policy(Objects.requireNonNull(ttl, "ttl")));
        held(start);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        long start = System.nanoTime();
        lock.lockInterruptibly();
        held(start);
    }

    /** Takes the lock only if no other thread holds it here and the cluster grants it now. */
    @Override
    public boolean tryLock() {
        long start = System.nanoTime();
        if (!lock.tryLock()) {
            return false;
        }
        held(start);
        return true;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), null);
    }

    /**
     * Waits at most {@code waitTime} in all (for the other threads here, then in the lock's queue on
     * the cluster); the lease is revoked {@code ttl} after its grant if {@code ttl} is not null.
     */
    @Override
    public boolean tryLock(Duration waitTime, @Nullable Duration ttl) throws InterruptedException {
        long start = System.nanoTime();
        if (!lock.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS, ttl == null ? NO_TTL : policy(ttl))) {
            return false;
        }
        held(start);
        return true;
    }

    private static AcquireOptions policy(Duration ttl) {
        return AcquireOptions.builder().maxHold(ttl).build();
    }

    /** After a successful lock call: a first hold is told to the observer; a nested one is not. */
    private void held(long start) {
        lastUsedMillis = System.currentTimeMillis();
        if (lock.getHoldCount() != 1) {
            return;
        }
        heldSinceNanos = System.nanoTime();
        registry.observer().acquired(Duration.ofNanos(heldSinceNanos - start));
        var unused = lock.lease().lost().thenAccept(reason -> {
            if (reason != LossReason.RELEASED) {
                registry.observer().lost(reason);
            }
        });
    }

    /**
     * Ends one hold of the calling thread; the last one releases the lease. A lease already lost
     * ends the hold all the same (the loss was told when it happened) and is handed back by its
     * token in case the node still holds it for this session.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold this lock
     */
    @Override
    public void unlock() {
        if (lock.isHeldByCurrentThread() && lock.getHoldCount() == 1) {
            lastUsedMillis = System.currentTimeMillis();
            registry.observer().released(Duration.ofNanos(System.nanoTime() - heldSinceNanos));
        }
        lock.unlock();
    }

    /** Not supported: waiting on a condition would release the lease and change its token. */
    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    /** Whether the calling thread holds this lock (whatever its lease's validity). */
    public boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /** How many holds the calling thread has; 0 if it does not hold the lock. */
    public int getHoldCount() {
        return lock.getHoldCount();
    }

    /** The fencing token of the calling thread's hold (see {@link Lease#token()}). */
    public long token() {
        return lock.token();
    }

    /**
     * The token if the calling thread's lease is valid with at least {@code minRemaining} left, as
     * {@link Lease#fence(Duration)}; otherwise it throws and the write must not be sent.
     */
    public long fence(Duration minRemaining) {
        return lock.fence(minRemaining);
    }

    /**
     * Completes the first time the calling thread's hold stops being valid: with the loss reason, or
     * empty while the connection is in doubt (see {@link Lease#invalidated()}).
     */
    public CompletableFuture<Optional<LossReason>> invalidated() {
        return lock.invalidated();
    }

    /** The calling thread's lease, for what {@link Lease} offers beyond this class. */
    public Lease lease() {
        return lock.lease();
    }

    boolean idleSince(long millis) {
        return !lock.isLocked() && !lock.hasQueuedThreads() && lastUsedMillis < millis;
    }

    @Override
    public String toString() {
        return "TenureRegistryLock[" + lock.name() + "]";
    }
}
