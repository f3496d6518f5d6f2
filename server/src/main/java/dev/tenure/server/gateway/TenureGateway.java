package dev.tenure.server.gateway;

import dev.tenure.api.AttachDemux;
import dev.tenure.api.internal.CancelWait;
import dev.tenure.api.internal.LogCommand;
import dev.tenure.api.internal.Reply;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The gRPC face of a node. Validates each request's shape, writes it into the log through the
 * node's one cluster connection, and maps the reply back. Acquires that have to wait are parked
 * here (server-side waiting: the client holds one open call, it never polls) until the state
 * machine's WaitResolved event arrives.
 */
public final class TenureGateway extends TenureGrpc.TenureImplBase {
    /** How long a cut-off waiting acquire stays queued for the client's next try: see ParkedAcquire. */
    static final long WITHDRAW_DELAY_MS = 1_000;

    private final ClusterChannel cluster;
    private final SessionRegistry registry;
    private final RequestValidator validator;
    private final Function<ServerStatusRequest, CompletableFuture<ServerStatusResponse>> nodeStatus;
    /** Told of each stale write this node served: each is reported once, by the node the writer used. */
    private final StaleWriteListener staleWrites;
    /** Hears how each call carried on a Calls stream ended; the gRPC interceptor hears of unary ones. */
    private final CallsStream.Completions carriedCalls;

    /** Hears of every write this node rejected because its token was not the lock's current one. */
    interface StaleWriteListener {
        /** {@code current} is the lock's token at the time, 0 when the lock was free. */
        void rejected(String lock, String target, long token, long current);
    }

    TenureGateway(
            ClusterChannel cluster,
            SessionRegistry registry,
            RequestValidator validator,
            Function<ServerStatusRequest, CompletableFuture<ServerStatusResponse>> nodeStatus,
            StaleWriteListener staleWrites,
            CallsStream.Completions carriedCalls) {
        this.cluster = cluster;
        this.registry = registry;
        this.validator = validator;
        this.nodeStatus = nodeStatus;
        this.staleWrites = staleWrites;
        this.carriedCalls = carriedCalls;
    }

    @Override
    public StreamObserver<AttachRequest> attach(StreamObserver<AttachResponse> responses) {
        return new AttachStream(registry, cluster, validator, responses);
    }

    /**
     * Each session on the stream is served by an AttachStream of its own, as on Attach; their
     * answers are sent from the gateway's own thread, so those completed together (the acks of
     * one batch of renewals) leave in one message.
     */
    @Override
    public StreamObserver<AttachFrames> attachMany(StreamObserver<AttachEvents> events) {
        return new AttachDemux(this::attach, events, registry::soon);
    }

    /** Each unary call is also carried as a frame of a Calls stream, and served by the same handler. */
    @Override
    public StreamObserver<CallRequest> calls(StreamObserver<CallResponse> responses) {
        return new CallsStream(this, responses, carriedCalls);
    }

    @Override
    public void acquire(AcquireRequest request, StreamObserver<AcquireResponse> responses) {
        handleAcquire(request, Answer.unary(responses));
    }

    @Override
    public void release(ReleaseRequest request, StreamObserver<ReleaseResponse> responses) {
        handleRelease(request, Answer.unary(responses));
    }

    @Override
    public void renewLease(RenewLeaseRequest request, StreamObserver<RenewLeaseResponse> responses) {
        handleRenewLease(request, Answer.unary(responses));
    }

    @Override
    public void writeCheckpoint(WriteCheckpointRequest request, StreamObserver<WriteCheckpointResponse> responses) {
        handleWriteCheckpoint(request, Answer.unary(responses));
    }

    @Override
    public void lockStatus(LockStatusRequest request, StreamObserver<LockStatusResponse> responses) {
        handleLockStatus(request, Answer.unary(responses));
    }

    @Override
    public void kvPut(KvPutRequest request, StreamObserver<KvPutResponse> responses) {
        handleKvPut(request, Answer.unary(responses));
    }

    @Override
    public void kvGet(KvGetRequest request, StreamObserver<KvGetResponse> responses) {
        handleKvGet(request, Answer.unary(responses));
    }

    @Override
    public void kvDelete(KvDeleteRequest request, StreamObserver<KvDeleteResponse> responses) {
        handleKvDelete(request, Answer.unary(responses));
    }

    void handleAcquire(AcquireRequest request, Answer<AcquireResponse> responses) {
        if (!validated(() -> validator.acquire(request), responses)) {
            return;
        }
        new ParkedAcquire(request, responses).start();
    }

    void handleRelease(ReleaseRequest request, Answer<ReleaseResponse> responses) {
        if (validated(() -> validator.release(request), responses)) {
            call(LogCommand.newBuilder().setRelease(request), Reply::getRelease, responses, r -> {
                if (r.getCode() == dev.tenure.api.v1.Code.CODE_NOT_OWNER && r.getCurrentToken() != request.getToken()) {
                    staleWrites.rejected(request.getLock(), "release", request.getToken(), r.getCurrentToken());
                }
            });
        }
    }

    void handleRenewLease(RenewLeaseRequest request, Answer<RenewLeaseResponse> responses) {
        if (validated(() -> validator.renew(request), responses)) {
            call(LogCommand.newBuilder().setRenewLease(request), Reply::getRenewLease, responses);
        }
    }

    void handleWriteCheckpoint(WriteCheckpointRequest request, Answer<WriteCheckpointResponse> responses) {
        if (validated(() -> validator.checkpoint(request), responses)) {
            call(LogCommand.newBuilder().setWriteCheckpoint(request), Reply::getWriteCheckpoint, responses, r -> {
                if (r.getCode() == dev.tenure.api.v1.Code.CODE_STALE_TOKEN) {
                    staleWrites.rejected(request.getLock(), "checkpoint", request.getToken(), r.getCurrentToken());
                }
            });
        }
    }

    void handleLockStatus(LockStatusRequest request, Answer<LockStatusResponse> responses) {
        if (validated(() -> validator.status(request), responses)) {
            call(LogCommand.newBuilder().setLockStatus(request), Reply::getLockStatus, responses);
        }
    }

    void handleKvPut(KvPutRequest request, Answer<KvPutResponse> responses) {
        if (validated(() -> validator.put(request), responses)) {
            call(LogCommand.newBuilder().setKvPut(request), Reply::getKvPut, responses, r -> {
                if (r.getCode() == dev.tenure.api.v1.Code.CODE_STALE_TOKEN) {
                    staleWrites.rejected(
                            request.getFence().getLock(),
                            "kv:" + request.getKey(),
                            request.getFence().getToken(),
                            r.getCurrentToken());
                }
            });
        }
    }

    void handleKvGet(KvGetRequest request, Answer<KvGetResponse> responses) {
        if (validated(() -> validator.get(request), responses)) {
            call(LogCommand.newBuilder().setKvGet(request), Reply::getKvGet, responses);
        }
    }

    void handleKvDelete(KvDeleteRequest request, Answer<KvDeleteResponse> responses) {
        if (validated(() -> validator.delete(request), responses)) {
            call(LogCommand.newBuilder().setKvDelete(request), Reply::getKvDelete, responses, r -> {
                if (r.getCode() == dev.tenure.api.v1.Code.CODE_STALE_TOKEN) {
                    staleWrites.rejected(
                            request.getFence().getLock(),
                            "kv:" + request.getKey(),
                            request.getFence().getToken(),
                            r.getCurrentToken());
                }
            });
        }
    }

    @Override
    public void serverStatus(ServerStatusRequest request, StreamObserver<ServerStatusResponse> responses) {
        nodeStatus.apply(request).whenComplete((status, error) -> {
            if (error != null) {
                responses.onError(unavailable(error));
            } else {
                responses.onNext(status);
                responses.onCompleted();
            }
        });
    }

    private static boolean validated(Runnable check, Answer<?> responses) {
        try {
            check.run();
            return true;
        } catch (StatusRuntimeException e) {
            responses.fail(e);
            return false;
        }
    }

    private <T> void call(LogCommand.Builder command, Function<Reply, T> pick, Answer<T> responses) {
        complete(cluster.submit(command), pick, responses);
    }

    private <T> void call(
            LogCommand.Builder command, Function<Reply, T> pick, Answer<T> responses, Consumer<T> observe) {
        complete(
                cluster.submit(command),
                reply -> {
                    T response = pick.apply(reply);
                    observe.accept(response);
                    return response;
                },
                responses);
    }

    private static <T> void complete(CompletableFuture<Reply> reply, Function<Reply, T> pick, Answer<T> responses) {
        reply.whenComplete((r, error) -> {
            if (error != null) {
                responses.fail(unavailable(error));
            } else {
                try {
                    responses.ok(pick.apply(r));
                } catch (IllegalStateException gone) {
                    // The client gave up on the call; its outcome stands in the log all the same.
                }
            }
        });
    }

    static StatusRuntimeException unavailable(Throwable error) {
        return Status.UNAVAILABLE.withDescription(error.getMessage()).asRuntimeException();
    }

    /** An acquire call held open until the state machine decides it. Answers exactly once. */
    private final class ParkedAcquire implements SessionRegistry.WaitingAcquire {
        private final AcquireRequest request;
        private final Answer<AcquireResponse> responses;
        private final AtomicBoolean answered = new AtomicBoolean();

        ParkedAcquire(AcquireRequest request, Answer<AcquireResponse> responses) {
            this.request = request;
            this.responses = responses;
        }

        void start() {
            // Registered before the command is sent, so a grant that follows the Queued reply
            // at once can never arrive before anyone listens for it.
            registry.addWait(request.getSessionId(), request.getRequestId(), this);
            responses.onCancel(this::cancelled);
            cluster.submit(LogCommand.newBuilder().setAcquire(request)).whenComplete((reply, error) -> {
                if (error != null) {
                    forget();
                    answer(null, unavailable(error));
                } else if (!reply.hasQueued()) {
                    forget();
                    answer(reply.getAcquire(), null);
                }
                // Queued: the answer comes as a WaitResolved event.
            });
        }

        @Override
        public void resolve(AcquireResponse response) {
            answer(response, null);
        }

        @Override
        public void superseded() {
            answer(
                    null,
                    Status.ABORTED
                            .withDescription("superseded by a retry of the same request")
                            .asRuntimeException());
        }

        /**
         * The call ended unanswered: the client stopped waiting (its process died, it cancelled),
         * or the call was cut while the client goes on: a try's deadline (a client with several
         * endpoints gives each try part of its budget, then tries the next node at once) or a
         * reset connection. Withdraw the wait, a moment later: the withdrawal names this call's
         * try, so it changes nothing once the client's next try has reached the log, and the
         * moment lets that try get there first; otherwise the wait would be gone and the next try
         * answered CANCELLED.
         */
        private void cancelled() {
            if (answered.compareAndSet(false, true)) {
                forget();
                registry.later(WITHDRAW_DELAY_MS, this::withdraw);
            }
        }

        /** Cancels the wait, or releases the lease if the grant raced ahead of the cancel. */
        private void withdraw() {
            cluster.submit(LogCommand.newBuilder()
                    .setCancelWait(CancelWait.newBuilder()
                            .setSessionId(request.getSessionId())
                            .setRequestId(request.getRequestId())
                            .setAttempt(request.getAttempt())));
        }

        private void forget() {
            registry.removeWait(request.getSessionId(), request.getRequestId(), this);
        }

        private void answer(AcquireResponse response, StatusRuntimeException error) {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            if (responses.cancelled()) {
                // Nobody will learn of this grant: give the lock back instead of holding it
                // for a caller that stopped listening.
                if (response != null && response.hasGrant()) {
                    withdraw();
                }
                return;
            }
            try {
                if (error != null) {
                    responses.fail(error);
                } else {
                    responses.ok(response);
                }
            } catch (RuntimeException e) {
                if (response != null && response.hasGrant()) {
                    withdraw();
                }
            }
        }
    }
}
