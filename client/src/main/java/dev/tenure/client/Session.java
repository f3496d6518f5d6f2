package dev.tenure.client;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Grant;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.client.internal.TenureEnd;
import dev.tenure.client.spi.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One client process's liveness on the cluster, kept alive by one session stream; it owns
 * leases. Once {@link State#LOST} it never recovers: open a new session.
 *
 * <p>Every mutating request gets the next request id of this session; retries of a request reuse
 * its id, so the server returns the original outcome instead of acting twice. The requests
 * themselves are built in {@link LockRequests}, {@link Writes} and {@link Reads}.
 */
public final class Session implements AutoCloseable {
    /** CONNECTED: renewals are acknowledged. UNCERTAIN: one is late or the stream broke; leases
     * stay valid until their horizon. LOST: final. */
    public enum State {
        CONNECTED,
        UNCERTAIN,
        LOST
    }

    private final ClientContext ctx;
    private final EventQueue queue;
    private final Liveness liveness;
    private final AtomicLong requestIds = new AtomicLong();
    private final CompletableFuture<LossReason> lost = new CompletableFuture<>();
    private final Set<CompletableFuture<Lease>> acquiring = ConcurrentHashMap.newKeySet();
    private final SessionLeases leases = new SessionLeases();
    private final ConcurrentHashMap<String, TenureLock> locks = new ConcurrentHashMap<>();
    private volatile boolean gaveUpALease;
    private final Kv kv;

    Session(ClientContext ctx) {
        this.queue = new EventQueue(ctx.time);
        this.ctx = ctx;
        this.liveness = new Liveness(ctx, new Events(), queue);
        this.kv = new Kv(ctx, new Kv.Writer() {
            @Override
            public Caller caller() {
                requireLive();
                return Session.this.caller();
            }

            @Override
            public long nextRequestId() {
                return requestIds.incrementAndGet();
            }

            @Override
            public Writes.Failure failure() {
                return Session.this::failure;
            }
        });
    }

    CompletableFuture<Session> open() {
        return liveness.open().thenApply(v -> this);
    }

    public long id() {
        return liveness.sessionId();
    }

    /** What this session's requests name it by: its id and its secret. */
    private Caller caller() {
        return liveness.caller();
    }

    /** The TTL the server confirmed. */
    public Duration ttl() {
        return liveness.ttl();
    }

    public State state() {
        return liveness.state();
    }

    /** Completes once, when the session is LOST, with why. */
    public CompletableFuture<LossReason> lost() {
        return OffLoop.view(ctx.time, lost, false);
    }

    // ---- locks ----

    /** Waits as long as it takes (or until the session is lost). */
    public Lease acquire(String lock) {
        return Blocking.join(acquiring(lock, AcquireOptions.builder().build()));
    }

    /**
     * Throws {@link TenureException} with {@link TenureException.Code#LOCK_HELD} if the lock is not
     * granted within {@code wait}.
     */
    public Lease acquire(String lock, Duration wait) {
        return Blocking.join(acquiring(
                lock,
                AcquireOptions.builder()
                        .wait(Objects.requireNonNull(wait, "wait"))
                        .build()));
    }

    /** Acquires with a wait and a policy for the grant; see {@link AcquireOptions}. */
    public Lease acquire(String lock, AcquireOptions options) {
        return Blocking.join(acquiring(lock, options));
    }

    /**
     * The lock {@code name} as a {@link java.util.concurrent.locks.Lock} held by one thread at a
     * time, re-entrant per thread; see {@link TenureLock}. Its grants ask for no policy. The same
     * object for the same name, for the session's life.
     *
     * @throws IllegalArgumentException this session already made the lock with a policy
     */
    public TenureLock lock(String name) {
        return lock(name, AcquireOptions.builder().build());
    }

    /**
     * {@link #lock(String)} whose grants ask for {@code policy}'s policy (its wait is ignored: each
     * of the lock's methods sets its own).
     *
     * @throws IllegalArgumentException this session already made the lock with another policy
     */
    public TenureLock lock(String name, AcquireOptions policy) {
        Objects.requireNonNull(policy, "policy");
        TenureLock made =
                locks.computeIfAbsent(Objects.requireNonNull(name, "name"), n -> new TenureLock(this, n, policy));
        if (!made.options().samePolicy(policy)) {
            throw new IllegalArgumentException(
                    "lock '" + name + "' was already made by this session with another policy");
        }
        return made;
    }

    // ---- elections ----

    /**
     * Campaigns in election {@code name} with {@code value}: queues FIFO behind the leader and the
     * earlier candidates and blocks until this session is elected (or the session is lost). The
     * leadership is the lock's exclusive lease: its token fences writes, and it ends (and the
     * next candidate is elected) on {@link Leadership#resign()}, on the session's end, or as any
     * lease is lost. At most electionValueBytesMax (1 KiB by default).
     */
    public Leadership campaign(String name, byte[] value) {
        return new Leadership(acquire(name, campaignOptions(value).build()), value);
    }

    /**
     * {@link #campaign(String, byte[])} that gives up after {@code wait}: throws {@link
     * TenureException} with {@link TenureException.Code#LOCK_HELD} if not elected by then (the
     * candidacy is withdrawn).
     */
    public Leadership campaign(String name, byte[] value, Duration wait) {
        return new Leadership(
                acquire(
                        name,
                        campaignOptions(value)
                                .wait(Objects.requireNonNull(wait, "wait"))
                                .build()),
                value);
    }

    /** {@link #campaign(String, byte[])} without blocking; cancelling the future withdraws the candidacy. */
    public CompletableFuture<Leadership> campaignAsync(String name, byte[] value) {
        byte[] copy = value.clone();
        return acquireAsync(name, campaignOptions(copy).build()).thenApply(lease -> new Leadership(lease, copy));
    }

    private static AcquireOptions.Builder campaignOptions(byte[] value) {
        return AcquireOptions.builder().value(Objects.requireNonNull(value, "value"));
    }

    /** Takes the lock only if it is free now. */
    public Optional<Lease> tryAcquire(String lock) {
        try {
            return Optional.of(acquire(lock, Duration.ZERO));
        } catch (TenureException e) {
            if (e.code() == TenureException.Code.LOCK_HELD) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * Acquires without blocking the caller. {@code wait} null means forever. Cancelling the
     * future withdraws the wait on the server; a grant that raced the cancel is released.
     */
    public CompletableFuture<Lease> acquireAsync(String lock, @Nullable Duration wait) {
        AcquireOptions.Builder options = AcquireOptions.builder();
        if (wait != null) {
            options.wait(wait);
        }
        return acquireAsync(lock, options.build());
    }

    /** {@link #acquireAsync(String, Duration)} with a policy for the grant. */
    public CompletableFuture<Lease> acquireAsync(String lock, AcquireOptions options) {
        return OffLoop.view(ctx.time, acquiring(lock, options), true);
    }

    /**
     * Writes an ephemeral key: it lives while this session lives, and the server deletes it in the
     * same step that ends the session, however it ends (close, expiry, a lost connection once its
     * grace has passed). While this session lives, another session's put of the key is refused
     * with {@link TenureException.Code#EPHEMERAL_CONFLICT}; this session may overwrite it, and
     * its plain {@code kv().put} makes the key durable. Returns the key's version.
     */
    public long putEphemeral(String key, byte[] value) {
        return Blocking.join(kv.putEphemeral(key, value));
    }

    /** {@link #putEphemeral(String, byte[])} without blocking: the future completes with the version. */
    public CompletableFuture<Long> putEphemeralAsync(String key, byte[] value) {
        return OffLoop.view(ctx.time, kv.putEphemeral(key, value), true);
    }

    /**
     * {@link #acquireAsync(String, AcquireOptions)} completed on whichever thread the answer
     * arrives: for the synchronous calls, whose caller waits for it and is woken directly.
     */
    private CompletableFuture<Lease> acquiring(String lock, AcquireOptions options) {
        Objects.requireNonNull(options, "options");
        return acquiring(lock, options, options.waitTime());
    }

    /** {@link #acquiring(String, AcquireOptions)} with {@code wait} in place of the options' own. */
    // acquiring holds this very future: identity, which is CompletableFuture's equality, is meant.
    @SuppressWarnings("CollectionUndefinedEquality")
    CompletableFuture<Lease> acquiring(String lock, AcquireOptions options, @Nullable Duration wait) {
        Objects.requireNonNull(lock, "lock");
        Objects.requireNonNull(options, "options");
        long waitMs = LockRequests.waitMs(wait);
        CompletableFuture<Lease> result = new CompletableFuture<>();
        ctx.listener.acquireStart(lock);
        CompletableFuture<?> unused = result.whenComplete((lease, error) -> {
            acquiring.remove(result);
            OffLoop.run(ctx.time, () -> {
                if (error == null) {
                    ctx.listener.acquireEnd(lease);
                } else {
                    ctx.listener.acquireFailed(lock, asTenure(error));
                }
            });
        });
        if (liveness.lostReason() != null) {
            result.completeExceptionally(lostException());
            return result;
        }
        acquiring.add(result);
        send(new Acquiring(lock, options, waitMs, result, ctx.time.nanoTime()), 0);
        if (liveness.lostReason() != null) {
            result.completeExceptionally(lostException()); // lost while this was being set up
        }
        return result;
    }

    /** One acquire the caller asked for, across the requests sent for it (see {@link #REACQUIRES_MAX}). */
    private record Acquiring(
            String lock, AcquireOptions options, long waitMs, CompletableFuture<Lease> result, long startNanos) {}

    /**
     * How many times an acquire is sent again, as a new request, after the server answered
     * {@code CANCELLED} while its caller still waits: a try of it was cut (a connection reset the
     * client noticed late) and the node that held that try withdrew its wait, or gave back the
     * grant that had raced ahead, before the next try reached the log. The caller never gave up,
     * so the client asks again (at the back of the queue, with what is left of the wait); the
     * bound keeps a node that cancels every wait from holding it in a loop.
     */
    static final int REACQUIRES_MAX = 3;

    private void send(Acquiring a, int reacquires) {
        long waitMs = a.waitMs() < 0
                ? a.waitMs()
                : Math.max(0, a.waitMs() - TimeUnit.NANOSECONDS.toMillis(ctx.time.nanoTime() - a.startNanos()));
        // Taken before the request leaves: the server grants no earlier than it receives it, so
        // this is a safe origin for the lease's own (maxHold, manual TTL) horizon.
        long sentNanos = ctx.time.nanoTime();
        CompletableFuture<AcquireResponse> call = LockRequests.acquire(
                ctx,
                caller(),
                requestIds.incrementAndGet(),
                a.lock(),
                waitMs,
                a.options().policy(ttl()),
                a.options().permits(),
                a.options().shared(),
                a.options().value());
        // However the result ends (cancelled, session lost), the server-side wait must end too.
        CompletableFuture<?> unused = a.result().whenComplete((lease, error) -> call.cancel(false));
        unused = call.whenComplete((response, error) -> acquired(a, reacquires, response, error, sentNanos));
    }

    private void acquired(Acquiring a, int reacquires, AcquireResponse response, Throwable error, long sentNanos) {
        String lock = a.lock();
        CompletableFuture<Lease> result = a.result();
        if (error != null) {
            result.completeExceptionally(liveness.lostReason() != null ? lostException() : error);
            return;
        }
        if (response.getCode() == Code.CODE_CANCELLED
                && reacquires < REACQUIRES_MAX
                && !result.isDone()
                && liveness.lostReason() == null) {
            send(a, reacquires + 1);
            return;
        }
        switch (response.getCode()) {
            case CODE_OK -> granted(response.getGrant(), result, sentNanos);
            case CODE_HELD ->
                result.completeExceptionally(lockHeld(lock, response.getHolderToken(), response.getMessage()));
            default -> {
                // The server's own words first; only then the session's loss (which fails every
                // pending acquire with a generic SESSION_LOST).
                result.completeExceptionally(
                        Outcomes.unexpected("acquire '" + lock + "'", response.getCode(), response.getMessage()));
                if (response.getCode() == Code.CODE_SESSION_LOST) {
                    liveness.endedByServer();
                }
            }
        }
    }

    private void granted(Grant grant, CompletableFuture<Lease> result, long sentNanos) {
        Lease lease = new Lease(this, grant, sentNanos);
        if (!leases.add(lease)) {
            result.completeExceptionally(lostException());
            return;
        }
        if (lease.bounded()) {
            // A queued acquire was granted some time after it was sent; one renewal moves the
            // lease's own horizon from that (early, safe) origin to a fresh one.
            lease.renewAsync().exceptionally(e -> null);
        }
        if (!result.complete(lease)) {
            // The caller gave up after the server granted: hand the lock back now rather than hold
            // it unseen until the session ends.
            lease.releaseOwn().exceptionally(e -> null);
        }
    }

    /**
     * Releases this session's lease that holds {@code token} on {@code lock} (compare-and-delete;
     * it ends RELEASED). Throws {@link StaleTokenException} ({@link TenureException.Code#NOT_OWNER}), and changes nothing, if the token is
     * not current or another session holds it: ending another session's lease is
     * {@link #forceRelease}.
     */
    public void release(String lock, long token) {
        requireLive();
        LockRequests.releaseByToken(ctx, caller(), requestIds.incrementAndGet(), lock, token, false, this::failure);
        markReleased(lock, token, LossReason.RELEASED);
    }

    /**
     * A forced release: ends the lease that holds {@code token} on {@code lock}, whichever
     * session holds it. The server ends it REVOKED, so the lock's lock delay applies as after any
     * unclean end; its holder is told before the next waiter is granted, and the lock's history
     * names this session (and its client name) as the one that forced it. Throws
     * {@link StaleTokenException} ({@link TenureException.Code#NOT_OWNER}), and changes nothing, if
     * the token is not current.
     */
    public void forceRelease(String lock, long token) {
        requireLive();
        LockRequests.releaseByToken(ctx, caller(), requestIds.incrementAndGet(), lock, token, true, this::failure);
        markReleased(lock, token, LossReason.REVOKED);
    }

    private void markReleased(String lock, long token, LossReason reason) {
        Lease own = leases.get(token);
        if (own != null && own.lock().equals(lock)) {
            own.markLost(reason);
        }
    }

    /** Compare-and-delete of one of this session's own leases. */
    CompletableFuture<Void> releaseOwn(Lease lease) {
        return LockRequests.releaseOwn(ctx, caller(), requestIds.incrementAndGet(), lease.lock(), lease.token())
                .thenApply(r -> {
                    switch (r.getCode()) {
                        case CODE_OK -> lease.markLost(LossReason.RELEASED);
                        case CODE_NOT_OWNER -> {
                            // The server no longer counts it as ours. Unless a LeaseEnded or the session's
                            // loss told us first, that is news the caller must hear.
                            if (lease.markLost(LossReason.REVOKED)) {
                                throw StaleTokenException.notOwner(lease.lock(), lease.token(), r.getCurrentToken());
                            }
                        }
                        case CODE_SESSION_LOST -> liveness.endedByServer(); // the lease went with the session
                        default -> throw failure("release '" + lease.lock() + "'", r.getCode(), r.getMessage());
                    }
                    return null;
                });
    }

    /** Proclaim for one of this session's own leases: NOT_OWNER means the server took it back. */
    void proclaimOwn(Lease lease, byte[] value) {
        requireLive();
        var r = Blocking.join(
                LockRequests.proclaim(ctx, caller(), requestIds.incrementAndGet(), lease.lock(), lease.token(), value));
        switch (r.getCode()) {
            case CODE_OK -> {}
            case CODE_NOT_OWNER -> {
                lease.markLost(LossReason.REVOKED);
                throw StaleTokenException.notOwner(lease.lock(), lease.token(), r.getCurrentToken());
            }
            default -> throw failure("proclaim '" + lease.lock() + "'", r.getCode(), r.getMessage());
        }
    }

    /** Downgrade of one of this session's own leases: NOT_OWNER means the server took it back. */
    CompletableFuture<Void> downgradeOwn(Lease lease) {
        try {
            requireLive();
        } catch (TenureException lost) {
            return CompletableFuture.failedFuture(lost);
        }
        return LockRequests.downgrade(ctx, caller(), requestIds.incrementAndGet(), lease.lock(), lease.token())
                .thenApply(r -> {
                    switch (r.getCode()) {
                        case CODE_OK -> {}
                        case CODE_NOT_OWNER -> {
                            lease.markLost(LossReason.REVOKED);
                            throw StaleTokenException.notOwner(lease.lock(), lease.token(), r.getCurrentToken());
                        }
                        default -> throw failure("downgrade '" + lease.lock() + "'", r.getCode(), r.getMessage());
                    }
                    return null;
                });
    }

    /** RenewLease for one of this session's own leases. */
    CompletableFuture<RenewLeaseResponse> renewOwn(Lease lease, long maxHoldMs) {
        return LockRequests.renew(ctx, caller(), requestIds.incrementAndGet(), lease.lock(), lease.token(), maxHoldMs);
    }

    /** WriteCheckpoint under one of this session's own leases. */
    void checkpointOwn(Lease lease, byte[] value) {
        requireLive();
        Writes.checkpoint(
                ctx, caller(), requestIds.incrementAndGet(), lease.lock(), lease.token(), value, this::failure);
    }

    ClientContext context() {
        return ctx;
    }

    /**
     * The fenced key-value store, written within this session: a retry of a write is answered from
     * the server's record. A write once the session is lost throws {@link TenureException} ({@link TenureException.Code#SESSION_LOST}).
     */
    public Kv kv() {
        return kv;
    }

    /**
     * Ends the session: its leases are released and its waits withdrawn. Idempotent. Waits
     * briefly for the server to confirm; either way the session is LOST(RELEASED) afterwards.
     */
    @Override
    public void close() {
        beginClose();
        awaitClosed();
    }

    /**
     * {@link #close()} without blocking: starts ending the session and returns at once. The future
     * completes when the session is LOST (RELEASED once the server confirmed the end or a short
     * wait passed; the first reason stands if it was lost already), after {@link #lost()} and every
     * lease's {@link Lease#lost()} have completed. It never completes exceptionally. Idempotent.
     * It never waits, so a listener, a future's callback or a single-threaded event loop may call it.
     */
    public CompletableFuture<Void> closeAsync() {
        beginClose();
        return OffLoop.view(ctx.time, lost.thenApply(reason -> null), false);
    }

    /**
     * A lease this session gave up at its own horizon (maxHold, manual TTL) may still be current on
     * the server for a margin; closing then must not record it as a clean release, so the Close
     * says EXPIRED (every lease still held ends that way: the cautious reading for the next holder).
     */
    void beginClose() {
        liveness.close(gaveUpALease ? TenureEnd.EXPIRED : TenureEnd.RELEASED);
    }

    void awaitClosed() {
        Blocking.join(liveness.ended().copy()); // bounded: a timer ends the wait for an answer
        queue.drain(); // so lost() is complete on return, unless a callback up this stack runs it
    }

    @Override
    public String toString() {
        return "Session[" + id() + ", " + state() + "]";
    }

    // ---- for Lease ----

    Liveness liveness() {
        return liveness;
    }

    TimeSource time() {
        return ctx.time;
    }

    /** A lease was given up at its own horizon: a close from now on says EXPIRED. */
    void gaveUp() {
        gaveUpALease = true;
    }

    void forget(Lease lease, LossReason reason) {
        if (reason == LossReason.HORIZON_PASSED) {
            gaveUpALease = true;
        }
        leases.remove(lease);
        ctx.listener.leaseLost(lease, reason);
    }

    // ---- internals ----

    private TenureException failure(String request, Code code, String message) {
        if (code == Code.CODE_SESSION_LOST) {
            liveness.endedByServer();
        }
        return Outcomes.unexpected(request, code, message);
    }

    private void requireLive() {
        if (liveness.lostReason() != null) {
            throw lostException();
        }
    }

    private TenureException lostException() {
        return new TenureException(
                TenureException.Code.SESSION_LOST, "session " + id() + " is lost: " + liveness.lostReason());
    }

    /**
     * The lock was not granted. Nobody holds the lock but it is in its lock delay (holder token
     * 0): the server's message says until when.
     */
    private static TenureException lockHeld(String lock, long holderToken, String serverMessage) {
        if (holderToken == 0 && serverMessage.contains("lock delay")) {
            return new TenureException(TenureException.Code.LOCK_HELD, serverMessage);
        }
        return new TenureException(
                TenureException.Code.LOCK_HELD, "lock '" + lock + "' is held (holder token " + holderToken + ")");
    }

    private static TenureException asTenure(Throwable error) {
        Throwable t = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (t instanceof TenureException e) {
            return e;
        }
        if (t instanceof CancellationException) {
            return new TenureException(TenureException.Code.OTHER, "acquire cancelled", t);
        }
        return new TenureException(TenureException.Code.OTHER, String.valueOf(t), t);
    }

    /** Liveness's events, in the session's event order. */
    private final class Events implements Liveness.Events {
        @Override
        public void stateChanged(State from, State to) {
            ctx.listener.sessionStateChanged(Session.this, from, to);
        }

        @Override
        public void renewFailed(Throwable cause) {
            ctx.listener.renewFailed(Session.this, cause);
        }

        @Override
        public void leaseEnded(long token, LossReason reason) {
            leases.ended(token, reason);
        }

        @Override
        public void validityLapsed() {
            leases.inDoubtAll();
        }

        @Override
        public void lost(LossReason reason) {
            leases.loseAll(reason);
            lost.complete(reason);
            for (CompletableFuture<Lease> waiting : new ArrayList<>(acquiring)) {
                waiting.completeExceptionally(lostException());
            }
            ctx.sessions.remove(Session.this);
        }
    }
}
