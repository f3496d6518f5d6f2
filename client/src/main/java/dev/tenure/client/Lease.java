package dev.tenure.client;

import dev.tenure.api.v1.Grant;
import dev.tenure.client.internal.WireValues;
import dev.tenure.client.spi.TimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One grant of one lock to one session. Its token is the evidence storage checks; its horizon
 * is the client's conservative deadline, which passes before the server could grant the lock to
 * anyone else: the session's horizon, or earlier when the grant's policy bounds the lease itself
 * (maxHold, manual renewal; see {@link AcquireOptions}).
 *
 * <p>The lease's own horizon counts from the send time of the request that last told the client
 * how long the server keeps the lease (the acquire, then each {@link #renew()}), plus that time,
 * minus the drift margin: the server started counting no earlier than it received the request.
 *
 * <p>Call {@link #fence(Duration)} right before each mutation, and pass the token it returns to
 * the storage's check.
 */
public final class Lease implements AutoCloseable {
    private final Session session;
    private final String lock;
    private final long token;
    private final long sessionId;
    private final Optional<LossReason> previousEnd;
    private final long previousToken;
    private final Instant grantedAt;
    private final Duration sessionTtl;
    private final CompletableFuture<LossReason> lost = new CompletableFuture<>();
    private final CompletableFuture<Optional<LossReason>> invalidated = new CompletableFuture<>();
    private final GrantPolicy policy;
    private final @Nullable Checkpoint previousCheckpoint;
    /** Its own horizon is bounded (maxHold or manual renewal); else only the session's counts. */
    private final boolean bounded;
    // Guarded by this.
    private long ownHorizonNanos;
    private TimeSource.@Nullable Cancellable ownTimer;

    Lease(Session session, Grant grant, long sentNanos) {
        this.session = session;
        this.policy = new GrantPolicy(
                grant.getPolicy().getLockDelayMs(),
                grant.getPolicy().getMaxHoldMs(),
                grant.getPolicy().getLeaseTtlMs());
        this.previousCheckpoint =
                grant.hasPreviousCheckpoint() ? WireValues.checkpoint(grant.getPreviousCheckpoint()) : null;
        long boundMs = policy.boundMs();
        this.bounded = boundMs > 0;
        if (bounded) {
            this.ownHorizonNanos = sentNanos + lifetimeNanos(boundMs);
            this.ownTimer = session.time()
                    .schedule(
                            this::checkOwnHorizon,
                            ownHorizonNanos - session.time().nanoTime());
        }
        this.lock = grant.getLock();
        this.token = grant.getToken();
        this.sessionId = grant.getSessionId();
        this.previousEnd = LossReason.ofPrevious(WireValues.tenureEnd(grant.getPreviousEndValue()));
        this.previousToken = grant.getPreviousToken();
        this.grantedAt = Instant.ofEpochMilli(grant.getGrantedAtMs());
        this.sessionTtl = Duration.ofMillis(grant.getTtlMs());
    }

    public String lock() {
        return lock;
    }

    public long token() {
        return token;
    }

    public long sessionId() {
        return sessionId;
    }

    /**
     * How the previous tenure of this lock ended (RELEASED, EXPIRED, DISCONNECTED or REVOKED):
     * decides whether re-entry must clean up. Empty if the lock had no tenure before this one.
     */
    public Optional<LossReason> previousEnd() {
        return previousEnd;
    }

    /** The previous tenure's token, 0 if none. */
    public long previousToken() {
        return previousToken;
    }

    /**
     * The lock's last checkpoint when this lease was granted: what a previous holder (the one
     * with {@link #previousToken()}, or an earlier one, see {@link Checkpoint#token()}) recorded
     * of its progress. Empty if no holder ever wrote one.
     */
    public Optional<Checkpoint> previousCheckpoint() {
        return Optional.ofNullable(previousCheckpoint);
    }

    public AcquireOptions.Renew renewMode() {
        return policy.manual() ? AcquireOptions.Renew.MANUAL : AcquireOptions.Renew.AUTO;
    }

    /** Zero when off. */
    public Duration maxHold() {
        return Duration.ofMillis(policy.maxHoldMs());
    }

    /** Zero when off. */
    public Duration lockDelay() {
        return Duration.ofMillis(policy.lockDelayMs());
    }

    /** The TTL of a MANUAL lease; zero for AUTO. */
    public Duration leaseTtl() {
        return Duration.ofMillis(policy.leaseTtlMs());
    }

    /**
     * Stores {@code value} as the lock's checkpoint under this lease's token (a fenced write: once
     * the token is stale it is refused with {@link StaleTokenException} and nothing changes). The
     * next holder receives it as {@link #previousCheckpoint()}. At most checkpointBytesMax
     * (16 KiB by default) bytes.
     */
    public void checkpoint(byte[] value) {
        Objects.requireNonNull(value, "value");
        LossReason reason = lossReason();
        if (reason != null) {
            throw lostException(reason);
        }
        session.checkpointOwn(this, value);
    }

    /** An election's proclaim under this lease's token: see {@link Leadership#proclaim}. */
    void proclaim(byte[] value) {
        LossReason reason = lossReason();
        if (reason != null) {
            throw lostException(reason);
        }
        session.proclaimOwn(this, value);
    }

    /**
     * Renews now. A MANUAL lease is renewed by this call (or by {@link #fence(Duration)}) only; an
     * AUTO lease is renewed with its session (one keepalive, waited for). Neither passes maxHold.
     *
     * @throws TenureException {@link TenureException.Code#LEASE_LOST}: the server no longer holds this
     *     lease for this session
     */
    public void renew() {
        LossReason reason = lossReason();
        if (reason != null) {
            throw lostException(reason);
        }
        if (bounded) {
            Blocking.join(renewAsync());
        } else {
            Blocking.join(session.liveness().renewNow());
        }
        reason = lossReason();
        if (reason != null) {
            throw lostException(reason);
        }
    }

    /**
     * Moves this lease's maxHold: the cluster revokes it no sooner than {@code maxHold} after it
     * applies this call, and never sooner than it would have (a shorter {@code maxHold} changes
     * nothing). The holder's own horizon moves from this call's send time once the cluster
     * answers. For work that learns it needs longer than the grant allowed; the bound stays, so a
     * stuck holder still loses the lease in the end.
     *
     * @throws IllegalStateException the lease was granted without a maxHold: adding one is not
     *     an extension (ask for one at acquire)
     * @throws TenureException {@link TenureException.Code#LEASE_LOST}: the lease is already lost;
     *     {@link TenureException.Code#INVALID_REQUEST}: {@code maxHold} is outside the cluster's
     *     range (maxHoldMsMax)
     */
    public void extendMaxHold(Duration maxHold) {
        long ms = maxHold.toMillis();
        if (ms <= 0) {
            throw new IllegalArgumentException("maxHold must be positive, was " + maxHold);
        }
        if (maxHold().isZero()) {
            throw new IllegalStateException("lease of '" + lock + "' was granted without a maxHold");
        }
        LossReason reason = lossReason();
        if (reason != null) {
            throw lostException(reason);
        }
        Blocking.join(renewAsync(ms));
        reason = lossReason();
        if (reason != null) {
            throw lostException(reason);
        }
    }

    /**
     * Turns this exclusive lease into a shared one in one step, with the same token: the lock is
     * never free in between, and the shared waiters at the head of its queue are admitted at once.
     * A shared lease's downgrade changes nothing. There is no upgrade (two holders upgrading would
     * wait for each other): release and acquire exclusive instead.
     *
     * @throws TenureException {@link TenureException.Code#INVALID_REQUEST} for a semaphore's lease or one
     *     with lockDelay, maxHold or MANUAL renewal; {@link StaleTokenException} if the server no
     *     longer holds this lease
     */
    public void downgrade() {
        Blocking.join(downgradeOwn());
    }

    /**
     * {@link #downgrade()} without blocking the caller: completes once the server has answered,
     * and fails with what downgrade() would throw. Act as a shared holder from the call on: the
     * server may admit other shared holders before its answer arrives.
     */
    public CompletableFuture<Void> downgradeAsync() {
        return OffLoop.view(session.time(), downgradeOwn(), true);
    }

    private CompletableFuture<Void> downgradeOwn() {
        LossReason reason = lossReason();
        if (reason != null) {
            return CompletableFuture.failedFuture(lostException(reason));
        }
        return session.downgradeOwn(this);
    }

    /** State-machine time of the grant (the leader's clock when it ordered the grant). */
    public Instant grantedAt() {
        return grantedAt;
    }

    /**
     * The TTL of the session that holds this lease, as the grant reported it: how long the server
     * keeps the session (and so an AUTO lease) without a keepalive. A MANUAL lease's own TTL is
     * {@link #leaseTtl()}.
     */
    public Duration sessionTtl() {
        return sessionTtl;
    }

    /** The horizon on the session's {@link TimeSource#nanoTime()} scale: the earlier of the session's and the lease's own. */
    long horizonNanos() {
        long sessionHorizon = session.liveness().horizonNanos();
        synchronized (this) {
            return bounded && ownHorizonNanos - sessionHorizon < 0 ? ownHorizonNanos : sessionHorizon;
        }
    }

    /**
     * Time this lease may still be trusted: until its horizon, or with a disconnect grace until
     * the grace after the last renewal its connection confirmed. Zero once lost.
     */
    public Duration remaining() {
        if (lossReason() != null) {
            return Duration.ZERO;
        }
        long left = validUntilNanos() - session.time().nanoTime();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    /**
     * Whether the lease may be trusted now. False before it is lost while no stream has proved the
     * session within its disconnect grace (the node may be ending it); true again if a resume is
     * confirmed in time. {@link #invalidated()} completes when this first turns false.
     */
    public boolean isValid() {
        return lossReason() == null && session.time().nanoTime() - validUntilNanos() < 0;
    }

    private long validUntilNanos() {
        long h = horizonNanos();
        long bound = session.liveness().validUntilNanos();
        return bound - h < 0 ? bound : h;
    }

    /**
     * Returns the token if the lease is valid with at least {@code minRemaining} left. With less
     * left, renews now (one keepalive, waiting for its ack at most until the horizon) and checks
     * again.
     *
     * @throws TenureException {@link TenureException.Code#LEASE_LOST}: the lease is lost, do not mutate
     * @throws TenureException {@link TenureException.Code#LEASE_EXPIRING}: still valid, but not for
     *     {@code minRemaining}
     */
    public long fence(Duration minRemaining) {
        long needNanos = nanos(minRemaining);
        Liveness live = session.liveness();
        for (boolean renewed = false; ; renewed = true) {
            live.checkHorizon(); // a passed horizon is LOST now, not when the timer gets to it
            checkOwnHorizon();
            LossReason reason = lossReason();
            if (reason != null) {
                throw lostException(reason);
            }
            long now = session.time().nanoTime();
            long sessionLeft = live.horizonNanos() - now;
            long ownLeft = ownLeftNanos(now);
            if (Math.min(sessionLeft, ownLeft) <= 0) {
                throw lostException(LossReason.HORIZON_PASSED);
            }
            // With a disconnect grace, the session's part ends sooner: see Horizon.validUntilNanos.
            long trustedLeft = Math.min(live.validUntilNanos() - now, sessionLeft);
            long left = Math.min(trustedLeft, ownLeft);
            if (left > 0 && left >= needNanos) { // at 0 the lease is no longer valid: isValid() says so too
                return token;
            }
            // A renewal gives at most the lifetime (TTL − margin, or the grace's), and never passes maxHold.
            boolean ownCanGrow = renewMode() == AcquireOptions.Renew.MANUAL && needNanos <= ownCapNanos();
            if (renewed || needNanos > live.validLifetimeNanos() || (ownLeft < needNanos && !ownCanGrow)) {
                throw new TenureException(
                        TenureException.Code.LEASE_EXPIRING,
                        "lease of '" + lock + "' (token " + token + ") has "
                                + TimeUnit.NANOSECONDS.toMillis(Math.max(0, left)) + " ms left, "
                                + minRemaining.toMillis() + " ms needed");
            }
            if (ownLeft < needNanos) {
                Blocking.join(renewAsync());
            }
            if (trustedLeft < needNanos) {
                Blocking.join(live.renewNow());
            }
        }
    }

    /**
     * Completes exactly once, when the lease is lost for good, with why. A lease can stop being
     * valid before that: see {@link #invalidated()}.
     */
    public CompletableFuture<LossReason> lost() {
        return OffLoop.view(session.time(), lost, false);
    }

    /**
     * Completes the first time this lease stops being valid, for any reason: a loss, with its
     * reason (as {@link #lost()} then says too), or empty when the connection is in doubt: no
     * stream has proved the session within its disconnect grace, and the node may be ending it.
     * In doubt is not a loss: a resume confirmed within the grace makes the lease valid again
     * ({@link #isValid()}, {@link #fence(Duration)} then say so). This is the signal to stop
     * acting under the lease: it fires when {@link #isValid()} turns false, before the node could
     * grant the lock to anyone else, and it does not complete again; so code that fails closed
     * stops at this signal, and code that can wait checks {@link #fence(Duration)} before it acts
     * again.
     */
    public CompletableFuture<Optional<LossReason>> invalidated() {
        return OffLoop.view(session.time(), invalidated, false);
    }

    /** The lease stopped being valid without being lost (yet): the connection is in doubt. */
    void markInDoubt() {
        invalidated.complete(Optional.empty());
    }

    /**
     * Compare-and-delete with this session and token. Idempotent; a lease already known lost
     * is not sent again.
     *
     * @throws StaleTokenException {@link TenureException.Code#NOT_OWNER}: the server says the token is no longer the lock's grant, and the
     *     client did not already know
     */
    public void release() {
        Blocking.join(releaseOwn());
    }

    /**
     * {@link #release()} without blocking the caller: completes once the server has answered, or
     * at once for a lease already known lost, and fails with what release() would throw
     * ({@link StaleTokenException} among them).
     */
    public CompletableFuture<Void> releaseAsync() {
        return OffLoop.view(session.time(), releaseOwn(), true);
    }

    /** {@link #releaseAsync()} completed on whichever thread the answer arrives. */
    CompletableFuture<Void> releaseOwn() {
        if (lossReason() != null) {
            return CompletableFuture.completedFuture(null);
        }
        return session.releaseOwn(this);
    }

    /** {@link #release()}, except that a lease the server already took back is not an error. */
    @Override
    public void close() {
        try {
            release();
        } catch (StaleTokenException alreadyGone) {
            // Not owner: the lock is not ours either way, which is all close() promises.
        }
    }

    /** The lease is lost for {@code reason}: stop acting on it. */
    private TenureException lostException(LossReason reason) {
        return new TenureException(
                TenureException.Code.LEASE_LOST, "lease of '" + lock + "' (token " + token + ") is lost: " + reason);
    }

    @Override
    public String toString() {
        return "Lease[" + lock + ", token " + token + ", session " + sessionId + "]";
    }

    /** Returns false if the lease was already lost (the first reason stands). */
    boolean markLost(LossReason reason) {
        if (lost.isDone()) {
            return false;
        }
        if (reason == LossReason.HORIZON_PASSED) {
            // Before lost() completes: code woken by it may close the session at once, and that
            // close must already say EXPIRED (a race with another reason only makes it cautious).
            session.gaveUp();
        }
        if (!lost.complete(reason)) {
            return false;
        }
        invalidated.complete(Optional.of(reason));
        synchronized (this) {
            if (ownTimer != null) {
                ownTimer.cancel();
            }
        }
        session.forget(this, reason);
        return true;
    }

    boolean bounded() {
        return bounded;
    }

    /**
     * RenewLease; on success moves the lease's own horizon to this request's send time + what the
     * server said is left − the margin. NOT_OWNER: the server ended the lease (its LeaseEnded push
     * usually says how first); either way it is lost.
     */
    CompletableFuture<Void> renewAsync() {
        return renewAsync(0);
    }

    private CompletableFuture<Void> renewAsync(long maxHoldMs) {
        long sentNanos = session.time().nanoTime();
        return session.renewOwn(this, maxHoldMs).thenAccept(r -> {
            switch (r.getCode()) {
                case CODE_OK -> {
                    if (r.getRemainingMs() >= 0) {
                        moveOwnHorizon(sentNanos + lifetimeNanos(r.getRemainingMs()));
                    }
                }
                case CODE_NOT_OWNER -> markLost(LossReason.REVOKED);
                case CODE_SESSION_LOST -> session.liveness().endedByServer();
                case CODE_INVALID ->
                    throw new TenureException(
                            TenureException.Code.INVALID_REQUEST, "renew '" + lock + "': " + r.getMessage());
                default -> throw Outcomes.unexpected("renew '" + lock + "'", r.getCode(), r.getMessage());
            }
        });
    }

    private synchronized void moveOwnHorizon(long candidateNanos) {
        if (candidateNanos - ownHorizonNanos > 0) {
            ownHorizonNanos = candidateNanos;
        }
    }

    /** LOST(HORIZON_PASSED) once the lease's own horizon passes; re-armed lazily as renewals move it. */
    private void checkOwnHorizon() {
        if (!bounded || lost.isDone()) {
            return;
        }
        long now = session.time().nanoTime();
        synchronized (this) {
            long left = ownHorizonNanos - now;
            if (left > 0) {
                ownTimer = session.time().schedule(this::checkOwnHorizon, left);
                return;
            }
        }
        // The client gives the lease up without telling the server: a release would be recorded
        // as a clean end; the server ends it on its own (EXPIRED or REVOKED) very soon after.
        markLost(LossReason.HORIZON_PASSED);
    }

    private long ownLeftNanos(long now) {
        if (!bounded) {
            return Long.MAX_VALUE;
        }
        synchronized (this) {
            return ownHorizonNanos - now;
        }
    }

    /** How much a renewal could give at most: the lease TTL's lifetime. */
    private long ownCapNanos() {
        return lifetimeNanos(policy.leaseTtlMs());
    }

    private long lifetimeNanos(long ms) {
        long nanos = Duration.ofMillis(ms).toNanos();
        return nanos - session.context().marginNanos(nanos);
    }

    /** Null while valid. The session's reason counts before its events reach this lease. */
    /** Why the lease is lost, or null while it is not (known to be). */
    @Nullable
    LossReason lossReason() {
        LossReason r = lost.getNow(null);
        return r != null ? r : session.liveness().lostReason();
    }

    private static long nanos(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("minRemaining must not be negative: " + d);
        }
        try {
            return d.toNanos();
        } catch (ArithmeticException beyondLong) {
            return Long.MAX_VALUE;
        }
    }
}
