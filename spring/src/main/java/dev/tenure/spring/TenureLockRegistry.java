package dev.tenure.spring;

import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * Spring Integration's lock registry on Tenure: {@link #obtain(Object)} gives one {@link
 * TenureRegistryLock} per key (a String, the lock's name on the cluster), held through one
 * session that this registry opens at first use and opens again once it is lost.
 *
 * <p>{@link #close()} closes that session: the cluster releases every lease it holds at once, so
 * another instance waiting for one of its locks is granted it without waiting for a TTL. A
 * process that dies without closing frees its locks after the cluster's disconnect grace (its
 * connection broke) or after the session TTL (it went silent).
 *
 * <p>{@link #renewLock(Object, Duration)} moves the calling thread's lease's maxHold ({@link
 * dev.tenure.client.Lease#extendMaxHold}): never earlier than it was, and only for a lease that
 * was taken with a ttl. {@link #renewLock(Object)} renews now (one keepalive, waited for), which
 * tells the caller that the lease is still held; it does not move a maxHold.
 */
public final class TenureLockRegistry
        implements ExpirableLockRegistry<TenureRegistryLock>, RenewableLockRegistry<TenureRegistryLock>, AutoCloseable {

    private static final LockObserver NONE = new LockObserver() {};

    private final TenureClient client;
    private final ConcurrentHashMap<String, TenureRegistryLock> locks = new ConcurrentHashMap<>();
    private volatile LockObserver observer = NONE;

    private @Nullable Session session; // guarded by this
    private boolean closed; // guarded by this

    /** A registry on {@code client}, which the caller keeps and closes after this registry. */
    public TenureLockRegistry(TenureClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** Tells {@code observer} about every hold from now on (for metrics). */
    public void setObserver(LockObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    LockObserver observer() {
        return observer;
    }

    /**
     * The lock named {@code lockKey}: the same object for the same key until {@link
     * #expireUnusedOlderThan} drops it while idle.
     *
     * @throws IllegalArgumentException the key is not a String
     */
    @Override
    public TenureRegistryLock obtain(Object lockKey) {
        if (!(lockKey instanceof String name)) {
            throw new IllegalArgumentException("a Tenure lock key is a String, was "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        return locks.computeIfAbsent(name, n -> new TenureRegistryLock(this, n));
    }

    /**
     * Drops the local lock objects that no thread holds or waits for and that were last used more
     * than {@code age} milliseconds ago. Only local objects: it ends no lease.
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        long before = System.currentTimeMillis() - age;
        locks.values().removeIf(lock -> lock.idleSince(before));
    }

    /**
     * Renews the calling thread's lease of {@code lockKey} now.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold that lock
     */
    @Override
    public void renewLock(Object lockKey) {
        obtain(lockKey).lease().renew();
    }

    /**
     * Moves the maxHold of the calling thread's lease of {@code lockKey} to {@code ttl} from now,
     * never earlier than it was.
     *
     * @throws IllegalMonitorStateException the calling thread does not hold that lock
     * @throws IllegalStateException the lease was taken without a ttl
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        obtain(lockKey).lease().extendMaxHold(ttl);
    }

    /** The state of this registry's session; empty before the first lock or after close. */
    public synchronized Optional<Session.State> sessionState() {
        return session == null ? Optional.empty() : Optional.of(session.state());
    }

    /** The session this registry's locks are held on, opened (again) if there is none or it is lost. */
    public synchronized Session session() {
        if (closed) {
            throw new IllegalStateException("TenureLockRegistry is closed");
        }
        if (session == null || session.state() == Session.State.LOST) {
            session = client.openSession();
        }
        return session;
    }

    /** Closes the session: the cluster releases every lease of this registry at once. Idempotent. */
    @Override
    public void close() {
        Session open;
        synchronized (this) {
            closed = true;
            open = session;
            session = null;
        }
        if (open != null) {
            open.close();
        }
    }

    @Override
    public String toString() {
        return "TenureLockRegistry[" + locks.size() + " locks]";
    }
}
