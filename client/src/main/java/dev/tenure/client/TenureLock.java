package dev.tenure.client;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A Tenure lock as a {@link Lock}: from {@link Session#lock(String)}, one object per name and
 * session. It is held by one thread at a time and re-entrant per thread with a hold count, as
 * {@link ReentrantLock} is: the first {@code lock()} of a thread acquires a lease from the
 * cluster, nested ones count, and the {@code unlock()} that brings the count to zero releases the
 * lease. Threads of one JVM that share the session queue here (fairly) before they ask the
 * cluster, since the cluster grants a session's repeated acquire of the same lock as one lease.
 *
 * <p>Unlike a local lock, this one can stop being valid while a thread holds it: its lease can be
 * lost (session ended, revoked, maxHold) or in doubt. The holder learns it the moment it
 * happens from {@link #invalidated()}, and {@link #fence(Duration)} gives the token to send with a
 * write only while the lease is valid. A nested {@code lock()} of a lease already lost throws
 * (LEASE_LOST) instead of counting, so a thread never enters a critical section under a lease it
 * knows to be gone. {@code unlock()} of a lost lease still ends the thread's hold and throws
 * nothing: the loss was told when it happened, and {@code unlock()} must always let the next
 * thread in; if the node may still hold that lease (the client's own horizon passed first), it is
 * released by its token.
 *
 * <p>{@link #lock()} waits until granted or the session is lost (then it throws
 * {@link TenureException}, SESSION_LOST); it is not interruptible, as the {@link Lock} contract
 * says: an interrupt during the wait is kept for the caller. {@link #newCondition()} is not
 * supported: a condition would need the lease released and re-acquired around each wait, which
 * would change the token under the caller's feet.
 *
 * <p>An adapter that needs the same hold counting with a policy per hold, or on a session it opens
 * again once it is lost (a lock registry), makes its lock with {@link #onSessions} and passes the
 * policy to {@link #lock(AcquireOptions)} and {@link #tryLock(long, TimeUnit, AcquireOptions)}.
 */
public final class TenureLock implements Lock {

    /** The session a new hold acquires on: fixed for {@link Session#lock}, an adapter's current one. */
    private final Supplier<Session> sessions;

    private final String name;
    private final AcquireOptions options;
    /** Which thread holds it, and how many times: fair, so that threads take turns in arrival order. */
    private final ReentrantLock holder = new ReentrantLock(true);
    /** The lease of the current hold; written and read by the holding thread only, under {@link #holder}. */
    private @Nullable Lease lease;
    /** The session {@link #lease} was granted on, which alone can hand it back; as {@link #lease}. */
    private @Nullable Session leaseSession;

    TenureLock(Session session, String name, AcquireOptions options) {
        this(() -> session, name, options);
    }

    private TenureLock(Supplier<Session> sessions, String name, AcquireOptions options) {
        this.sessions = sessions;
        this.name = Objects.requireNonNull(name, "name");
        this.options = Objects.requireNonNull(options, "options");
    }

    /**
     * A lock named {@code name} whose every first hold of a thread acquires on the session that
     * {@code sessions} gives at that moment: for an adapter that holds its locks on one session
     * and opens a new one once it is lost. Unlike {@link Session#lock(String)}, each call makes a
     * new object: one per name is the caller's to keep, or two objects would not exclude each
     * other's threads locally (the cluster would still exclude their sessions, but grants one
     * session's repeated acquire as the same lease).
     *
     * @param options the policy of {@link #lock()}, {@link #lockInterruptibly()} and the
     *     {@code tryLock} methods without one (its wait is ignored)
     * @param sessions called on the thread that takes a first hold; what it throws, that call throws
     */
    public static TenureLock onSessions(String name, AcquireOptions options, Supplier<Session> sessions) {
        return new TenureLock(Objects.requireNonNull(sessions, "sessions"), name, options);
    }

    /** The lock's name. */
    public String name() {
        return name;
    }

    /** The policy each grant of this lock asks for (its wait is ignored: each method sets its own). */
    public AcquireOptions options() {
        return options;
    }

    @Override
    public void lock() {
        lock(options);
    }

    /**
     * As {@link #lock()}, a first hold asking for {@code policy} instead of {@link #options()} (its
     * wait is ignored). A nested hold keeps the lease it nests in, whatever its policy.
     */
    public void lock(AcquireOptions policy) {
        Objects.requireNonNull(policy, "policy");
        holder.lock();
        if (!nested()) {
            try {
                Session on = sessions.get();
                hold(on, uninterruptibly(on.acquiring(name, policy, null)));
            } catch (RuntimeException e) {
                holder.unlock();
                throw e;
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        holder.lockInterruptibly();
        if (!nested()) {
            try {
                Session on = sessions.get();
                hold(on, interruptibly(on.acquiring(name, options, null)));
            } catch (InterruptedException | RuntimeException e) {
                holder.unlock();
                throw e;
            }
        }
    }

    /** Takes the lock only if no other thread holds it here and the cluster grants it now. */
    @Override
    public boolean tryLock() {
        if (!holder.tryLock()) {
            return false;
        }
        if (nested()) {
            return true;
        }
        return holdOrLetGo(on -> uninterruptibly(on.acquiring(name, options, Duration.ZERO)));
    }

    /**
     * Waits at most {@code time} in all: for the other threads here, then in the lock's queue on the
     * cluster. False if it ran out.
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(time, unit, options);
    }

    /**
     * As {@link #tryLock(long, TimeUnit)}, a first hold asking for {@code policy} instead of
     * {@link #options()} (its wait is ignored: {@code time} is the wait). A nested hold keeps the
     * lease it nests in, whatever its policy.
     */
    public boolean tryLock(long time, TimeUnit unit, AcquireOptions policy) throws InterruptedException {
        Objects.requireNonNull(policy, "policy");
        long deadline = System.nanoTime() + unit.toNanos(time);
        if (!holder.tryLock(time, unit)) {
            return false;
        }
        if (nested()) {
            return true;
        }
        Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
        return holdOrLetGo(on -> interruptibly(on.acquiring(name, policy, left)));
    }

    /** Waits for a grant on {@code on}, as one of the {@code tryLock} methods does. */
    @FunctionalInterface
    private interface Grant<X extends Exception> {
        Lease await(Session on) throws X;
    }

    private void hold(Session on, Lease granted) {
        leaseSession = on;
        lease = granted;
    }

    /**
     * Keeps the lease that {@code grant} waits for as this thread's hold; if none comes, ends the
     * thread's local hold again, so that a failed {@code tryLock} leaves nothing held: false when
     * another session holds the lock, the failure itself otherwise.
     */
    private <X extends Exception> boolean holdOrLetGo(Grant<X> grant) throws X {
        try {
            Session on = sessions.get();
            hold(on, grant.await(on));
            return true;
        } catch (TenureException e) {
            holder.unlock();
            if (e.code() == TenureException.Code.LOCK_HELD) {
                return false;
            }
            throw e;
        } catch (Exception e) { // unchecked, or X: the interrupt of tryLock(time, unit)
            holder.unlock();
            throw e;
        }
    }

    /**
     * Ends one hold of the calling thread; the last one releases the lease.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold this lock
     * @throws StaleTokenException the cluster says the lease is not this session's any more and the
     *     client did not already know (the thread's hold has ended all the same)
     */
    @Override
    public void unlock() {
        if (!holder.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("lock '" + name + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        if (holder.getHoldCount() > 1) {
            holder.unlock();
            return;
        }
        Lease held = Objects.requireNonNull(lease, "the holder's lease");
        Session heldOn = Objects.requireNonNull(leaseSession, "the holder's session");
        lease = null;
        leaseSession = null;
        try {
            if (held.lossReason() == null) {
                held.release();
            } else {
                giveBack(heldOn, held);
            }
        } finally {
            holder.unlock();
        }
    }

    /**
     * Ends on the node a lease the client already stopped trusting. Its own horizon (maxHold, a
     * manual TTL) passes on the client no later than on the node, so the node may still hold it
     * for this session; released by its token (owner-bound: it cannot end anyone else's), the next
     * {@code lock()} is not refused as this session's own un-re-entrant lease. Only the session
     * that was granted it can: another one's release by the same token would be NOT_OWNER.
     */
    private void giveBack(Session on, Lease lost) {
        if (on.state() == Session.State.LOST) {
            return; // the node ends every lease of the session with it
        }
        try {
            on.release(name, lost.token());
        } catch (TenureException | IllegalStateException alreadyEnded) {
            // NOT_OWNER: the node ended it first; or the session ended or was closed meanwhile.
            // Either way the lease is gone, which is all this hand-back is for.
        }
    }

    /** Not supported (see the class comment). */
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

    /** Whether any thread holds this lock here (a snapshot, for monitoring and idle checks). */
    public boolean isLocked() {
        return holder.isLocked();
    }

    /** Whether any thread waits here to take this lock (a snapshot, as {@link #isLocked()}). */
    public boolean hasQueuedThreads() {
        return holder.hasQueuedThreads();
    }

    /**
     * The fencing token of the calling thread's hold.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold this lock
     */
    public long token() {
        return heldLease().token();
    }

    /**
     * As {@link Lease#fence(Duration)}: the token, if the lease is valid with at least
     * {@code minRemaining} left; otherwise it throws LEASE_LOST or LEASE_EXPIRING and the write must
     * not be sent.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold this lock
     */
    public long fence(Duration minRemaining) {
        return heldLease().fence(minRemaining);
    }

    /**
     * Completes the first time the calling thread's current hold stops being valid: with the loss
     * reason, or empty while the connection is in doubt (see {@link Lease#invalidated()}). Valid for
     * this hold only; the next hold has a future of its own.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold this lock
     */
    public CompletableFuture<Optional<LossReason>> invalidated() {
        return heldLease().invalidated();
    }

    /**
     * The lease of the calling thread's hold, for what {@link Lease} offers beyond this class
     * (checkpoints, manual renewal, {@link Lease#lost()}). Release it through {@link #unlock()}.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold this lock
     */
    public Lease lease() {
        return heldLease();
    }

    @Override
    public String toString() {
        return "TenureLock[" + name + "]";
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
     * hold of a lost lease is refused (the hold just taken is given back): entering a critical
     * section under a lease known to be gone is what this lock exists to prevent.
     */
    private boolean nested() {
        if (holder.getHoldCount() == 1) {
            return false;
        }
        Lease held = Objects.requireNonNull(lease, "the holder's lease");
        LossReason lost = held.lossReason();
        if (lost != null) {
            holder.unlock();
            throw new TenureException(
                    TenureException.Code.LEASE_LOST,
                    "lease of '" + name + "' (token " + held.token() + ") is lost: " + lost);
        }
        return true;
    }

    private static Lease uninterruptibly(CompletableFuture<Lease> acquiring) {
        try {
            return acquiring.join();
        } catch (CompletionException | CancellationException e) {
            throw Blocking.unchecked(e);
        }
    }

    private static Lease interruptibly(CompletableFuture<Lease> acquiring) throws InterruptedException {
        try {
            return acquiring.get();
        } catch (InterruptedException e) {
            acquiring.cancel(true); // withdraws the wait on the cluster
            throw e;
        } catch (ExecutionException e) {
            throw Blocking.unchecked(e.getCause() != null ? e.getCause() : e);
        }
    }
}
