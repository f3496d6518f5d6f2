package dev.tenure.shedlock;

import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

/**
 * ShedLock's {@link ExtensibleLockProvider} on Tenure: each {@code @SchedulerLock} task runs under a
 * Tenure lease, with a fencing token it can send with its writes.
 *
 * <ul>
 *   <li>{@code lockAtMostFor} is the lease's maxHold: the cluster revokes the lease then, even if
 *       the task still runs, and the task's token is refused by fenced stores from that moment.
 *       Unlike a lock row that merely expires, a holder that dies is noticed at once: its session
 *       ends and the name is free after the disconnect grace, not after {@code lockAtMostFor}. It
 *       must lie within the cluster's maxHold range (200 ms to a week by default).
 *   <li>{@code lockAtLeastFor}: an {@code unlock()} before it has passed keeps the lease until it
 *       has, then releases it. The lease stays bound to this provider's session, so a process that
 *       stops in that window frees the name early (at once on {@link #close()}, after the
 *       disconnect grace on a crash).
 *   <li>{@link SimpleLock#extend} moves the maxHold ({@link Lease#extendMaxHold}), never earlier
 *       than it was, and keeps the token.
 *   <li>The running task reaches its lease with {@link #currentToken()} and {@link
 *       #currentLease()}: ShedLock runs a task on the thread that locked for it.
 * </ul>
 *
 * <p>One provider holds one session, opened at the first lock and opened again if it is lost. Its
 * threads exclude each other here first: the cluster grants a session's repeated acquire of a
 * name it holds as the same lease, which would let two threads run one task at once.
 */
public final class TenureLockProvider implements ExtensibleLockProvider, AutoCloseable {

    private static final ThreadLocal<Deque<TenureSimpleLock>> CURRENT = ThreadLocal.withInitial(ArrayDeque::new);

    private final TenureClient client;
    /** The names this provider holds, by the handle that holds each (until its deferred release ran). */
    private final ConcurrentHashMap<String, TenureSimpleLock> held = new ConcurrentHashMap<>();

    private final ScheduledExecutorService deferredReleases = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tenure-shedlock-release");
        t.setDaemon(true);
        return t;
    });

    private @Nullable Session session; // guarded by this
    private boolean closed; // guarded by this

    /** A provider on {@code client}, which the caller keeps and closes after this provider. */
    public TenureLockProvider(TenureClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * The token of the innermost lock this thread holds through a {@link TenureLockProvider}: the
     * fence to send with the task's writes.
     *
     * @throws IllegalStateException this thread holds none
     */
    public static long currentToken() {
        return currentLease()
                .orElseThrow(() -> new IllegalStateException("this thread holds no Tenure ShedLock lock"))
                .token();
    }

    /**
     * The lease of the innermost lock this thread holds through a {@link TenureLockProvider}, for
     * {@link Lease#fence(Duration)} before each write and {@link Lease#invalidated()} to learn the
     * moment it stops being valid; empty if none.
     */
    public static Optional<Lease> currentLease() {
        TenureSimpleLock top = CURRENT.get().peek();
        return top == null ? Optional.empty() : Optional.of(Objects.requireNonNull(top.lease, "lease"));
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration config) {
        String name = config.getName();
        TenureSimpleLock claim = new TenureSimpleLock(this, name, config);
        TenureSimpleLock holder = held.putIfAbsent(name, claim);
        if (holder != null && !(endedOnItsOwn(holder) && held.replace(name, holder, claim))) {
            return Optional.empty(); // another thread of this provider holds it, or keeps it for lockAtLeastFor
        }
        try {
            claim.lease = session()
                    .acquire(
                            name,
                            AcquireOptions.builder()
                                    .wait(Duration.ZERO)
                                    .maxHold(config.getLockAtMostFor())
                                    .build());
        } catch (TenureException e) {
            held.remove(name, claim);
            if (e.code() == TenureException.Code.LOCK_HELD) {
                return Optional.empty();
            }
            throw e;
        } catch (RuntimeException e) {
            held.remove(name, claim);
            throw e;
        }
        CURRENT.get().push(claim);
        return Optional.of(claim);
    }

    /**
     * Whether {@code holder}'s lease ended without an unlock (maxHold, its session lost): its name
     * is then free here too, as it is in the cluster, or this instance would be refused it for good.
     * Asked only when a lock finds the name taken, not watched for on every lease: a dependent on
     * {@link Lease#lost()} is completed off the transport's event loop, one thread hand-off per
     * released lease, which cost the provider about a tenth of its cycles.
     */
    private static boolean endedOnItsOwn(TenureSimpleLock holder) {
        Lease lease = holder.lease; // null while that lock() is still acquiring
        return lease != null && lease.lost().isDone();
    }

    private synchronized Session session() {
        if (closed) {
            throw new IllegalStateException("TenureLockProvider is closed");
        }
        if (session == null || session.state() == Session.State.LOST) {
            session = client.openSession();
        }
        return session;
    }

    /** The task is done: release now, or once lockAtLeastFor has passed. */
    void unlocked(TenureSimpleLock lock) {
        CURRENT.get().remove(lock);
        long keepMs = Duration.between(ClockProvider.now(), lock.config.getLockAtLeastUntil())
                .toMillis();
        if (keepMs <= 0) {
            release(lock);
        } else {
            var unused = deferredReleases.schedule(() -> release(lock), keepMs, TimeUnit.MILLISECONDS);
        }
    }

    /** {@code old} was extended into {@code next}: the same lease, a new handle. */
    void extended(TenureSimpleLock old, TenureSimpleLock next) {
        held.replace(old.name, old, next);
        Deque<TenureSimpleLock> mine = CURRENT.get();
        if (mine.peek() == old) {
            mine.pop();
            mine.push(next);
        }
    }

    /** {@code lock}'s lease ended on its own (maxHold, a lost session): nothing left to release. */
    void ended(TenureSimpleLock lock) {
        CURRENT.get().remove(lock);
        release(lock);
    }

    private void release(TenureSimpleLock lock) {
        try {
            Lease lease = lock.lease;
            if (lease != null && lease.isValid()) {
                lease.release();
            }
        } catch (TenureException alreadyEnded) {
            // NOT_OWNER, LEASE_LOST, SESSION_LOST: the cluster ended it first, which is all a
            // release is for.
        } finally {
            held.remove(lock.name, lock);
        }
    }

    /**
     * Closes the session, which releases every lease of this provider at once, those kept for
     * lockAtLeastFor included. Idempotent.
     */
    @Override
    public void close() {
        Session last;
        synchronized (this) {
            closed = true;
            last = session;
            session = null;
        }
        deferredReleases.shutdownNow();
        if (last != null) {
            last.close();
        }
        held.clear();
    }

    /** One hold of a name: valid until unlocked or extended, as ShedLock's handles are. */
    static final class TenureSimpleLock implements SimpleLock {
        private final TenureLockProvider provider;
        private final String name;
        private final LockConfiguration config;
        /**
         * Set once, by {@link #lock}, before the handle is returned; read by other threads' locks
         * of the same name ({@link #endedOnItsOwn}).
         */
        private volatile @Nullable Lease lease;

        private boolean used; // guarded by this

        TenureSimpleLock(TenureLockProvider provider, String name, LockConfiguration config) {
            this.provider = provider;
            this.name = name;
            this.config = config;
        }

        @Override
        public void unlock() {
            use("unlock");
            provider.unlocked(this);
        }

        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            use("extend");
            Lease current = Objects.requireNonNull(lease, "lease");
            if (!current.isValid()) {
                provider.ended(this);
                return Optional.empty();
            }
            try {
                current.extendMaxHold(lockAtMostFor);
            } catch (TenureException e) {
                if (e.code() != TenureException.Code.LEASE_LOST) {
                    throw e;
                }
                provider.ended(this);
                return Optional.empty();
            }
            TenureSimpleLock next = new TenureSimpleLock(
                    provider, name, new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor));
            next.lease = current;
            provider.extended(this, next);
            return Optional.of(next);
        }

        /** A handle is used once: an unlock or an extend; an old one can do neither again. */
        private synchronized void use(String attempt) {
            if (used) {
                throw new IllegalStateException("cannot " + attempt + " lock '" + name
                        + "': this handle was already unlocked or extended, and is no longer valid");
            }
            used = true;
        }
    }
}
