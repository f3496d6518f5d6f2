package dev.tenure.client;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.DowngradeRequest;
import dev.tenure.api.v1.DowngradeResponse;
import dev.tenure.api.v1.Policy;
import dev.tenure.api.v1.ProclaimRequest;
import dev.tenure.api.v1.ProclaimResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.internal.Retrier;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A session's lock requests: Acquire, Release and RenewLease. Each carries the request id the
 * session gives it, and every retry of it the same one, so the server answers a retry from its
 * record instead of acting twice. What an answer means for the session's leases is the
 * {@link Session}'s to decide.
 */
final class LockRequests {
    private LockRequests() {}

    /** {@code waitMs} negative: forever. */
    static CompletableFuture<AcquireResponse> acquire(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String lock,
            long waitMs,
            GrantPolicy policy,
            int permits,
            boolean shared,
            byte[] value) {
        AcquireRequest request = AcquireRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setLock(lock)
                .setWaitMs(waitMs)
                .setPolicy(Policy.newBuilder()
                        .setLockDelayMs(policy.lockDelayMs())
                        .setMaxHoldMs(policy.maxHoldMs())
                        .setLeaseTtlMs(policy.leaseTtlMs()))
                .setPermits(permits)
                .setShared(shared)
                .setValue(ByteString.copyFrom(value))
                .build();
        long budget = waitMs < 0
                ? Retrier.FOREVER
                : saturatedAdd(TimeUnit.MILLISECONDS.toNanos(waitMs), ctx.requestTimeoutNanos);
        // Each try says which it is: a node whose call for an earlier try ends unanswered then
        // cannot withdraw the wait (or give back the grant) that a later try is waiting on.
        return ctx.retrier.callTries(
                TenureGrpc.getAcquireMethod(),
                attempt -> request.toBuilder().setAttempt(attempt).build(),
                budget);
    }

    /**
     * Releases the lease holding {@code token} on {@code lock}; waits for the answer. Without
     * {@code force} only a lease of the caller's session is ended; with it, whichever session
     * holds it (a forced release, which the server ends REVOKED). NOT_OWNER becomes
     * {@link StaleTokenException} ({@link TenureException.Code#NOT_OWNER}), other codes go through {@code failure}.
     */
    static void releaseByToken(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String lock,
            long token,
            boolean force,
            Writes.Failure failure) {
        ReleaseRequest request =
                release(caller, requestId, lock, token).setForce(force).build();
        ReleaseResponse r =
                Blocking.join(ctx.retrier.call(TenureGrpc.getReleaseMethod(), request, ctx.requestTimeoutNanos));
        if (r.getCode() == Code.CODE_NOT_OWNER) {
            throw StaleTokenException.notOwner(lock, token, r.getCurrentToken());
        } else if (r.getCode() != Code.CODE_OK) {
            throw failure.of((force ? "force release '" : "release '") + lock + "'", r.getCode(), r.getMessage());
        }
    }

    /** Compare-and-delete of one of the session's own leases. */
    static CompletableFuture<ReleaseResponse> releaseOwn(
            ClientContext ctx, Caller caller, long requestId, String lock, long token) {
        ReleaseRequest request = release(caller, requestId, lock, token).build();
        return ctx.retrier.call(TenureGrpc.getReleaseMethod(), request, ctx.requestTimeoutNanos);
    }

    static CompletableFuture<DowngradeResponse> downgrade(
            ClientContext ctx, Caller caller, long requestId, String lock, long token) {
        DowngradeRequest request = DowngradeRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setLock(lock)
                .setToken(token)
                .build();
        return ctx.retrier.call(TenureGrpc.getDowngradeMethod(), request, ctx.requestTimeoutNanos);
    }

    static CompletableFuture<ProclaimResponse> proclaim(
            ClientContext ctx, Caller caller, long requestId, String lock, long token, byte[] value) {
        ProclaimRequest request = ProclaimRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setLock(lock)
                .setToken(token)
                .setValue(ByteString.copyFrom(value))
                .build();
        return ctx.retrier.call(TenureGrpc.getProclaimMethod(), request, ctx.requestTimeoutNanos);
    }

    /** RenewLease; {@code maxHoldMs} 0 keeps the lease's maxHold, else moves it (never earlier). */
    static CompletableFuture<RenewLeaseResponse> renew(
            ClientContext ctx, Caller caller, long requestId, String lock, long token, long maxHoldMs) {
        RenewLeaseRequest request = RenewLeaseRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setLock(lock)
                .setToken(token)
                .setMaxHoldMs(maxHoldMs)
                .build();
        return ctx.retrier.call(TenureGrpc.getRenewLeaseMethod(), request, ctx.requestTimeoutNanos);
    }

    /** null: forever (-1 on the wire); sub-millisecond waits round up so they still wait. */
    static long waitMs(@Nullable Duration wait) {
        if (wait == null) {
            return -1;
        }
        if (wait.isNegative()) {
            throw new IllegalArgumentException("wait must not be negative: " + wait);
        }
        try {
            long ms = wait.toMillis();
            return ms == 0 && !wait.isZero() ? 1 : ms;
        } catch (ArithmeticException beyondLong) {
            return -1;
        }
    }

    private static ReleaseRequest.Builder release(Caller caller, long requestId, String lock, long token) {
        return ReleaseRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setLock(lock)
                .setToken(token);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Retrier.FOREVER : sum;
    }
}
