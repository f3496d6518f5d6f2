package dev.tenure.client.internal;

import dev.tenure.client.TenureException;
import dev.tenure.client.UnavailableException;
import dev.tenure.client.spi.TimeSource;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends one unary request, retrying on UNAVAILABLE / DEADLINE_EXCEEDED across the endpoints until
 * its budget is spent. Every try sends the same request id (an acquire also says which try it is):
 * the state machine returns the original outcome for a request it already decided, which is what
 * makes a retry after a lost reply safe (ZOOKEEPER-1262 is the bug this avoids).
 */
public final class Retrier {
    /** A budget for requests that may wait on the server without limit (acquire forever). */
    public static final long FOREVER = Long.MAX_VALUE;

    private static final long MIN_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final Endpoints endpoints;
    private final TimeSource time;

    public Retrier(Endpoints endpoints, TimeSource time) {
        this.endpoints = endpoints;
        this.time = time;
    }

    /**
     * Starts the request. The future fails with {@link UnavailableException} once
     * {@code budgetNanos} (on the TimeSource) has passed without an answer, with
     * {@link TenureException.Code#INVALID_REQUEST} on INVALID_ARGUMENT (never retried), with
     * {@link TenureException.Code#DENIED} on UNAUTHENTICATED or PERMISSION_DENIED (never retried), or with a
     * {@link TenureException} for any other status. Cancelling the future cancels the call in
     * flight, which on the server withdraws an acquire's wait.
     */
    public <Q, R> CompletableFuture<R> call(MethodDescriptor<Q, R> method, Q request, long budgetNanos) {
        return callTries(method, attempt -> request, budgetNanos);
    }

    /** As above, with the request for each try (from 1): a request that says which try it is. */
    public <Q, R> CompletableFuture<R> callTries(
            MethodDescriptor<Q, R> method, IntFunction<Q> tryRequest, long budgetNanos) {
        return start(new Tries<>(method, tryRequest, budgetNanos, time.nanoTime(), endpoints::callTarget));
    }

    /**
     * {@link #call}, at the preferred endpoint (where the sessions are) instead of the leader's:
     * for an answer that is the answering node's own, such as its status.
     */
    public <Q, R> CompletableFuture<R> callPreferred(MethodDescriptor<Q, R> method, Q request, long budgetNanos) {
        return start(new Tries<>(method, attempt -> request, budgetNanos, time.nanoTime(), endpoints::preferred));
    }

    private <Q, R> CompletableFuture<R> start(Tries<Q, R> tries) {
        // Also on success: the context is released once the request is decided either way.
        CompletableFuture<?> unused = tries.result.whenComplete((r, e) -> tries.cancel());
        tries.start();
        return tries.result;
    }

    public static boolean retryable(Status.Code code) {
        return code == Status.Code.UNAVAILABLE || code == Status.Code.DEADLINE_EXCEEDED;
    }

    /** A status for a message: code, description and the cause's message, without its stack trace. */
    public static String brief(Status status) {
        String text = status.getDescription() == null
                ? status.getCode().toString()
                : status.getCode() + ": " + status.getDescription();
        Throwable cause = status.getCause();
        return cause == null || cause.getMessage() == null ? text : text + " (" + cause.getMessage() + ")";
    }

    /** Maps a status that is not retried to the client's exception for it. */
    public static TenureException failure(Status status) {
        String detail = status.getDescription() == null ? status.getCode().toString() : status.getDescription();
        return switch (status.getCode()) {
            case INVALID_ARGUMENT -> new TenureException(TenureException.Code.INVALID_REQUEST, detail);
            case RESOURCE_EXHAUSTED -> new TenureException(TenureException.Code.LIMIT_EXCEEDED, detail);
            case UNAUTHENTICATED, PERMISSION_DENIED ->
                new TenureException(TenureException.Code.DENIED, detail, status.asRuntimeException());
            default ->
                new TenureException(
                        TenureException.Code.OTHER, status.getCode() + ": " + detail, status.asRuntimeException());
        };
    }

    /** The tries of one request. */
    private final class Tries<Q, R> {
        final CompletableFuture<R> result = new CompletableFuture<>();
        final MethodDescriptor<Q, R> method;
        final IntFunction<Q> tryRequest;
        final long budgetNanos;
        final long startNanos;
        /** The endpoint each try goes to first. */
        final IntSupplier target;
        // Calls run in a context of their own, detached from the caller's: a request made from
        // inside a gRPC server handler must not die with that handler's call. Cancelling the
        // context cancels the try in flight, even one not started yet (a try started in a
        // cancelled context fails at once), so cancel() needs no race handling.
        final Context.CancellableContext context = Context.ROOT.withCancellation();
        int failures; // guarded by this
        int started; // guarded by this: tries started, numbered from 1
        TimeSource.@Nullable Cancellable backoff; // guarded by this

        Tries(
                MethodDescriptor<Q, R> method,
                IntFunction<Q> tryRequest,
                long budgetNanos,
                long startNanos,
                IntSupplier target) {
            this.method = method;
            this.tryRequest = tryRequest;
            this.budgetNanos = budgetNanos;
            this.startNanos = startNanos;
            this.target = target;
        }

        void start() {
            if (result.isDone()) {
                return;
            }
            int index = target.getAsInt();
            CallOptions options = CallOptions.DEFAULT;
            if (budgetNanos != FOREVER) {
                long left = budgetNanos - (time.nanoTime() - startNanos);
                options = options.withDeadlineAfter(Math.max(attemptNanos(left), 1), TimeUnit.NANOSECONDS);
            }
            CallOptions callOptions = options;
            Q request;
            synchronized (this) {
                request = tryRequest.apply(++started);
            }
            context.run(() -> {
                ClientCall<Q, R> call = endpoints.callChannel(index).newCall(method, callOptions);
                ClientCalls.asyncUnaryCall(call, request, new Reply(index));
            });
        }

        /**
         * With several endpoints one try gets at most half the budget: a node that is paused or
         * cut off neither answers nor fails, and must not take the whole budget with it. A retry
         * is always safe (same request id), even of a waiting acquire: the wait's deadline was
         * fixed on the server when it was first queued.
         */
        long attemptNanos(long left) {
            if (endpoints.size() < 2) {
                return left;
            }
            return Math.min(left, Math.max(budgetNanos / 2, MIN_ATTEMPT_NANOS));
        }

        void failed(int index, Throwable error) {
            Status status = Status.fromThrowable(error);
            if (result.isDone()) {
                return; // cancelled by the caller: this is our own CANCELLED coming back
            }
            if (!retryable(status.getCode())) {
                result.completeExceptionally(failure(status));
                return;
            }
            endpoints.failed(index);
            long spent = time.nanoTime() - startNanos;
            long delay;
            int tries;
            synchronized (this) {
                tries = ++failures;
                delay = Backoff.delayNanos(tries, endpoints.size(), time.random());
                if (budgetNanos != FOREVER && spent + delay >= budgetNanos) {
                    delay = -1; // the next try would start with no time left: give up now, not later
                } else if (delay > 0) {
                    backoff = time.schedule(this::start, delay);
                }
            }
            if (delay < 0) {
                result.completeExceptionally(new UnavailableException(
                        "no endpoint answered "
                                + method.getBareMethodName() + " within " + TimeUnit.NANOSECONDS.toMillis(spent)
                                + " ms (" + tries + " tries; last: " + brief(status) + ")",
                        error));
            } else if (delay == 0) {
                start();
            }
        }

        void cancel() {
            TimeSource.Cancellable pending;
            synchronized (this) {
                pending = backoff;
            }
            if (pending != null) {
                pending.cancel();
            }
            context.cancel(null);
        }

        /** The outcome of one try. */
        final class Reply implements StreamObserver<R> {
            final int index;

            @Nullable
            R response;

            Reply(int index) {
                this.index = index;
            }

            @Override
            public void onNext(R value) {
                response = value;
            }

            @Override
            public void onError(Throwable t) {
                failed(index, t);
            }

            @Override
            public void onCompleted() {
                result.complete(response);
            }
        }
    }
}
