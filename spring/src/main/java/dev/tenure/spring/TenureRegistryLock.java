package dev.tenure.spring;

import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The lock a {@link TenureLockRegistry} hands out for one key: re-entrant per thread with a hold
 * count, as {@link dev.tenure.client.TenureLock} is, and a {@link DistributedLock} whose
 * {@code ttl} is the lease's maxHold. The first hold of a thread acquires a lease from the
 * cluster on the registry's session; nested holds count; the unlock that brings the count to zero
 * releases it. Threads of the registry queue here (fairly) before they ask the cluster, since the
 * cluster grants a session's repeated acquire of one name as the same lease.
 *
 * <p>A ttl is a hard bound, not a lease TTL: the lease is renewed with the session as long as the
 * process lives, and the cluster revokes it {@code ttl} after the grant even if the thread still
 * holds it; from then on {@link #fence(Duration)} throws, {@link #invalidated()} has completed,
 * and fenced stores refuse its token. Without a ttl the hold lasts until unlock or until the
 * session is lost. {@link TenureLockRegistry#renewLock(Object, Duration)} moves the bound later.
 *
 * <p>The lease is built per hold (not through {@code Session.lock}, whose policy is fixed per
 * name and session) because each hold may ask for its own ttl.
 */
public final class TenureRegistryLock implements DistributedLock {

    private final TenureLockRegistry registry;
    private final String name;
    /** Which thread holds it, and how many times: fair, so that threads take turns in arrival order. */
    private final ReentrantLock holder = new ReentrantLock(true);
    /** The current hold's lease and start; written and read by the holding thread, under {@link #holder}. */
    private @Nullable Lease lease;

    private long heldSinceNanos;
    /** For {@link TenureLockRegistry#expireUnusedOlderThan}: when a thread last locked or unlocked. */
    private volatile long lastUsedMillis = System.currentTimeMillis();

    TenureRegistryLock(TenureLockRegistry registry, String name) {
        this.registry = registry;
        this.name = name;
    }

    /** The key this lock was obtained for: the lock's name on the cluster. */
    public String name() {
        return name;
    }

    @Override
    public void lock() {
        lockFor(null);
    }

    /** As {@link #lock()}, the lease revoked {@code ttl} after its grant (its maxHold). */
    @Override
    public void lock(Duration ttl) {
        lockFor(Objects.requireNonNull(ttl, "ttl"));
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        long start = System.nanoTime();
        holder.lockInterruptibly();
        if (!nested()) {
            try {
                hold(awaitInterruptibly(acquiring(null, null)), start);
            } catch (InterruptedException | RuntimeException e) {
                holder.unlock();
                throw e;
            }
        }
    }

    private void lockFor(@Nullable Duration ttl) {
        long start = System.nanoTime();
        holder.lock();
        if (!nested()) {
            try {
                hold(registry.session().acquire(name, options(ttl, null)), start);
            } catch (RuntimeException e) {
                holder.unlock();
                throw e;
            }
        }
    }

    /** Takes the lock only if no other thread holds it here and the cluster grants it now. */
    @Override
    public boolean tryLock() {
        long start = System.nanoTime();
        if (!holder.tryLock()) {
            return false;
        }
        if (nested()) {
            return true;
        }
        try {
            hold(registry.session().acquire(name, options(null, Duration.ZERO)), start);
            return true;
        } catch (RuntimeException e) {
            return letGo(e);
        }
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
        long deadline = start + waitTime.toNanos();
        if (!holder.tryLock(waitTime.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        if (nested()) {
            return true;
        }
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        try {
            hold(awaitInterruptibly(acquiring(ttl, left)), start);
            return true;
        } catch (InterruptedException e) {
            holder.unlock();
            throw e;
        } catch (RuntimeException e) {
            return letGo(e);
        }
    }

    private CompletableFuture<Lease> acquiring(@Nullable Duration ttl, @Nullable Duration wait) {
        return registry.session().acquireAsync(name, options(ttl, wait));
    }

    private static AcquireOptions options(@Nullable Duration ttl, @Nullable Duration wait) {
        AcquireOptions.Builder b = AcquireOptions.builder();
        if (ttl != null) {
            b.maxHold(ttl);
        }
        if (wait != null) {
            b.wait(wait);
        }
        return b.build();
    }

    /** A failed first hold: nothing stays held; false if another session holds the lock. */
    private boolean letGo(RuntimeException e) {
        holder.unlock();
        if (e instanceof TenureException te && te.code() == TenureException.Code.LOCK_HELD) {
            return false;
        }
        throw e;
    }

    private void hold(Lease granted, long start) {
        lease = granted;
        heldSinceNanos = System.nanoTime();
        lastUsedMillis = System.currentTimeMillis();
        registry.observer().acquired(Duration.ofNanos(heldSinceNanos - start));
        var unused = granted.lost().thenAccept(reason -> {
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
        Lease held = heldLease();
        if (holder.getHoldCount() > 1) {
            holder.unlock();
            return;
        }
        lease = null;
        lastUsedMillis = System.currentTimeMillis();
        try {
            registry.observer().released(Duration.ofNanos(System.nanoTime() - heldSinceNanos));
            if (!held.lost().isDone()) {
                held.release();
            } else {
                giveBack(held);
            }
        } finally {
            holder.unlock();
        }
    }

    private void giveBack(Lease lost) {
        try {
            Session session = registry.session();
            if (session.id() == lost.sessionId()) {
                session.release(name, lost.token());
            }
        } catch (TenureException | IllegalStateException alreadyEnded) {
            // NOT_OWNER or SESSION_LOST: the node ended it first, which is all this is for; or
            // the registry is closed, and its session's close ended every lease it held.
        }
    }

    /** Not supported: waiting on a condition would release the lease and change its token. */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException(
                "a Tenure lock has no conditions: waiting on one would release the lease and change its token");
    }

    /** Whether the calling thread holds this lock (whatever its lease's validity). */
    public boolean isHeldByCurrentThread() {
        return holder.isHeldByCurrentThread();
    }

    /** How many holds the calling thread has; 0 if it does not hold the lock. */
    public int getHoldCount() {
        return holder.getHoldCount();
    }

    /** The fencing token of the calling thread's hold (see {@link Lease#token()}). */
    public long token() {
        return heldLease().token();
    }

    /**
     * The token if the calling thread's lease is valid with at least {@code minRemaining} left, as
     * {@link Lease#fence(Duration)}; otherwise it throws and the write must not be sent.
     */
    public long fence(Duration minRemaining) {
        return heldLease().fence(minRemaining);
    }

    /**
     * Completes the first time the calling thread's hold stops being valid: with the loss reason, or
     * empty while the connection is in doubt (see {@link Lease#invalidated()}).
     */
    public CompletableFuture<Optional<LossReason>> invalidated() {
        return heldLease().invalidated();
    }

    /** The calling thread's lease, for what {@link Lease} offers beyond this class. */
    public Lease lease() {
        return heldLease();
    }

    boolean idleSince(long millis) {
        return !holder.isLocked() && !holder.hasQueuedThreads() && lastUsedMillis < millis;
    }

    @Override
    public String toString() {
        return "TenureRegistryLock[" + name + "]";
    }

    private Lease heldLease() {
        if (!holder.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("lock '" + name + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        return Objects.requireNonNull(lease, "the holder's lease");
    }

    /**
     * Whether the calling thread, which has just taken {@link #holder}, already held it. A nested
     * hold of a lost lease is refused: entering a critical section under a lease known to be gone is
     * what this lock exists to prevent.
     */
    private boolean nested() {
        if (holder.getHoldCount() == 1) {
            return false;
        }
        Lease held = Objects.requireNonNull(lease, "the holder's lease");
        if (held.lost().isDone()) {
            holder.unlock();
            throw new TenureException(
                    TenureException.Code.LEASE_LOST, "lease of '" + name + "' (token " + held.token() + ") is lost");
        }
        return true;
    }

    private static Lease awaitInterruptibly(CompletableFuture<Lease> acquiring) throws InterruptedException {
        try {
            return acquiring.get();
        } catch (InterruptedException e) {
            acquiring.cancel(true); // withdraws the wait on the cluster
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new TenureException(TenureException.Code.OTHER, String.valueOf(cause), cause);
        } catch (CancellationException e) {
            throw new TenureException(TenureException.Code.OTHER, "acquire cancelled", e);
        }
    }
}
