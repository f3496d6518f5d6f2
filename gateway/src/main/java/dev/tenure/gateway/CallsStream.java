package dev.tenure.gateway;

import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Serves one Calls stream: each frame is a unary call, handed to the gateway's handler for it with
 * an {@link Answer} that sends the outcome back as a frame tagged with the call's id. So a call
 * behaves exactly as the unary call would; what the stream saves is the HTTP/2 stream and headers
 * of each call.
 *
 * <p>A Cancel frame, or the stream ending without the client's half-close (the client cancelled
 * it, its connection broke), cancels the calls in flight as gRPC cancels a unary call: their
 * cancel handlers run and their answers go nowhere. After the client's half-close the calls in
 * flight are still answered, and the stream completes with the last answer.
 */
final class CallsStream implements StreamObserver<CallRequest> {
    /** Hears how each carried call ended, as the gRPC interceptor hears of a unary call. */
    interface Completions {
        void completed(String method, Status.Code code, long nanos);
    }

    private final Gateway gateway;
    private final StreamObserver<CallResponse> out;
    private final Completions completions;
    /**
     * Calls this stream may have in flight (the node's callsInFlightMax); one more is refused with
     * RESOURCE_EXHAUSTED, before its handler sees it. Each holds the gateway's state for a call
     * until it is answered (a waiting acquire, until it is granted or gives up), and the client
     * chooses how many it sends: without a bound one stream could hold the node's heap.
     */
    private final int callsInFlightMax;

    private final Object lock = new Object();
    private final Map<Long, Carried<?>> inFlight = new HashMap<>(); // guarded by lock
    private boolean halfClosed; // guarded by lock
    private boolean done; // guarded by lock: no frame goes out any more

    CallsStream(Gateway gateway, StreamObserver<CallResponse> out, Completions completions, int callsInFlightMax) {
        this.gateway = gateway;
        this.out = out;
        this.completions = completions;
        this.callsInFlightMax = callsInFlightMax;
    }

    @Override
    public void onNext(CallRequest call) {
        long id = call.getId();
        if (id <= 0) {
            fail(Status.INVALID_ARGUMENT.withDescription("CallRequest.id must be > 0, was " + id));
            return;
        }
        switch (call.getKindCase()) {
            case ACQUIRE ->
                serve(
                        id,
                        call.getAcquire().getSessionId(),
                        "Acquire",
                        call.getAcquire(),
                        gateway::acquire,
                        CallResponse.Builder::setAcquire);
            case RELEASE ->
                serve(
                        id,
                        call.getRelease().getSessionId(),
                        "Release",
                        call.getRelease(),
                        gateway::release,
                        CallResponse.Builder::setRelease);
            case RENEW_LEASE ->
                serve(
                        id,
                        call.getRenewLease().getSessionId(),
                        "RenewLease",
                        call.getRenewLease(),
                        gateway::renewLease,
                        CallResponse.Builder::setRenewLease);
            case PROCLAIM ->
                serve(
                        id,
                        call.getProclaim().getSessionId(),
                        "Proclaim",
                        call.getProclaim(),
                        gateway::proclaim,
                        CallResponse.Builder::setProclaim);
            case DOWNGRADE ->
                serve(
                        id,
                        call.getDowngrade().getSessionId(),
                        "Downgrade",
                        call.getDowngrade(),
                        gateway::downgrade,
                        CallResponse.Builder::setDowngrade);
            case WRITE_CHECKPOINT ->
                serve(
                        id,
                        call.getWriteCheckpoint().getSessionId(),
                        "WriteCheckpoint",
                        call.getWriteCheckpoint(),
                        gateway::writeCheckpoint,
                        CallResponse.Builder::setWriteCheckpoint);
            case LOCK_STATUS ->
                serve(
                        id,
                        0,
                        "LockStatus",
                        call.getLockStatus(),
                        gateway::lockStatus,
                        CallResponse.Builder::setLockStatus);
            case KV_PUT ->
                serve(
                        id,
                        call.getKvPut().getSessionId(),
                        "KvPut",
                        call.getKvPut(),
                        gateway::kvPut,
                        CallResponse.Builder::setKvPut);
            case KV_GET -> serve(id, 0, "KvGet", call.getKvGet(), gateway::kvGet, CallResponse.Builder::setKvGet);
            case KV_DELETE ->
                serve(
                        id,
                        call.getKvDelete().getSessionId(),
                        "KvDelete",
                        call.getKvDelete(),
                        gateway::kvDelete,
                        CallResponse.Builder::setKvDelete);
            case LIST_LOCKS ->
                serve(id, 0, "ListLocks", call.getListLocks(), gateway::listLocks, CallResponse.Builder::setListLocks);
            case CANCEL -> cancel(id);
            case KIND_NOT_SET ->
                sendUnregistered(failed(
                        id, Status.INVALID_ARGUMENT.withDescription("CallRequest " + id + " carries no request")));
        }
    }

    /**
     * Hands call {@code id} to the gateway's handler. One over the limit is refused with an answer
     * of its own; a duplicate id fails the stream, whose answers could no longer be told apart.
     */
    private <Q, T> void serve(
            long id,
            long sessionId,
            String method,
            Q request,
            BiConsumer<Q, Answer<T>> handler,
            BiConsumer<CallResponse.Builder, T> set) {
        Carried<T> call = new Carried<>(id, sessionId, method, set);
        boolean full = false;
        boolean duplicate = false;
        synchronized (lock) {
            if (done) {
                return;
            } else if (inFlight.containsKey(id)) {
                duplicate = true;
            } else if (inFlight.size() >= callsInFlightMax) {
                full = true;
            } else {
                inFlight.put(id, call);
            }
        }
        if (duplicate) {
            fail(Status.INVALID_ARGUMENT.withDescription("CallRequest.id " + id + " is already in flight"));
        } else if (full) {
            sendUnregistered(full(id, method));
        } else {
            handler.accept(request, call);
        }
    }

    private void cancel(long id) {
        Carried<?> call;
        synchronized (lock) {
            call = inFlight.remove(id);
        }
        if (call != null) {
            call.cancelledByClient();
            completeIfDrained();
        }
    }

    /** The client cancelled the stream, or its connection broke: every call in flight is cancelled. */
    @Override
    public void onError(Throwable t) {
        for (Carried<?> call : endAll()) {
            call.cancelledByClient();
        }
    }

    /** The client sends no more calls; those in flight are still answered. */
    @Override
    public void onCompleted() {
        synchronized (lock) {
            halfClosed = true;
        }
        completeIfDrained();
    }

    private void completeIfDrained() {
        synchronized (lock) {
            if (!halfClosed || done || !inFlight.isEmpty()) {
                return;
            }
            done = true;
            try {
                out.onCompleted();
            } catch (RuntimeException alreadyCancelled) {
                // nothing left to complete
            }
        }
    }

    private void fail(Status status) {
        List<Carried<?>> ended;
        synchronized (lock) {
            boolean wasDone = done;
            ended = endAll();
            if (!wasDone) {
                try {
                    out.onError(status.asRuntimeException());
                } catch (RuntimeException alreadyCancelled) {
                    // nothing left to fail
                }
            }
        }
        for (Carried<?> call : ended) {
            call.cancelledByClient();
        }
    }

    private List<Carried<?>> endAll() {
        synchronized (lock) {
            done = true;
            List<Carried<?>> all = new ArrayList<>(inFlight.values());
            inFlight.clear();
            return all;
        }
    }

    /**
     * Sends call {@code id}'s answer if it is still in flight; false if it is not (cancelled, the
     * stream over). Sent under the lock: a call's outbound side takes one message at a time.
     */
    private boolean send(Carried<?> call, CallResponse response) {
        synchronized (lock) {
            if (done || !inFlight.remove(call.id, call)) {
                return false;
            }
            try {
                out.onNext(response);
            } catch (RuntimeException cancelled) {
                done = true; // the call is gone; its onError cancels the rest
                return false;
            }
        }
        completeIfDrained();
        return true;
    }

    /** One carried call. */
    private final class Carried<T> implements Answer<T> {
        final long id;
        /** The session the call is made for, 0 for none. */
        final long sessionId;

        final String method;
        final BiConsumer<CallResponse.Builder, T> set;
        final long startNanos = System.nanoTime();
        private boolean cancelled; // guarded by this
        private @Nullable Runnable onCancel; // guarded by this

        Carried(long id, long sessionId, String method, BiConsumer<CallResponse.Builder, T> set) {
            this.id = id;
            this.sessionId = sessionId;
            this.method = method;
            this.set = set;
        }

        @Override
        public void ok(T response) {
            CallResponse.Builder b = CallResponse.newBuilder().setId(id);
            set.accept(b, response);
            // Checked after the call was sent, so it proves the grace had not started by then;
            // the client counts from the call's send time. The client also takes it only for a
            // session whose stream runs on this connection and was confirmed before the call
            // left; with this gateway, whose graces start only when the client's side ends, that
            // alone would do, but an answer travels on another HTTP/2 stream than the session's,
            // so nothing orders it after a stream's end: the node says only what it checked.
            if (gateway.registry().carries(sessionId)) {
                b.setSessionAttached(true);
            }
            if (!send(this, b.build())) {
                throw new IllegalStateException("call " + id + " on a Calls stream is no longer in flight");
            }
            completions.completed(method, Status.Code.OK, System.nanoTime() - startNanos);
        }

        @Override
        public void fail(StatusRuntimeException error) {
            if (send(this, failed(id, error.getStatus()))) {
                completions.completed(method, error.getStatus().getCode(), System.nanoTime() - startNanos);
            }
        }

        @Override
        public synchronized boolean cancelled() {
            return cancelled;
        }

        @Override
        public void onCancel(Runnable handler) {
            boolean now;
            synchronized (this) {
                onCancel = handler;
                now = cancelled;
            }
            if (now) {
                handler.run();
            }
        }

        /** Taken out of flight by a Cancel frame or the stream's end: no answer goes out for it. */
        void cancelledByClient() {
            Runnable handler;
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                cancelled = true;
                handler = onCancel;
            }
            completions.completed(method, Status.Code.CANCELLED, System.nanoTime() - startNanos);
            if (handler != null) {
                handler.run();
            }
        }
    }

    private static CallResponse failed(long id, Status status) {
        return CallResponse.newBuilder()
                .setId(id)
                .setFailed(CallResponse.Failed.newBuilder()
                        .setCode(status.getCode().value())
                        .setMessage(status.getDescription() == null ? "" : status.getDescription()))
                .build();
    }

    /** The refusal of a call past callsInFlightMax: it names the limit, and the client may send it unary. */
    private CallResponse full(long id, String method) {
        CallResponse refused = failed(
                id,
                Status.RESOURCE_EXHAUSTED.withDescription("callsInFlightMax: a Calls stream carries at most "
                        + callsInFlightMax + " calls in flight; " + method + " " + id
                        + " was refused and changed nothing (send it when fewer are in flight, or as a unary call)"));
        return refused.toBuilder()
                .setFailed(refused.getFailed().toBuilder().setCallsInFlightMax(callsInFlightMax))
                .build();
    }

    /** An answer to a call that never was in flight (refused at once). */
    private void sendUnregistered(CallResponse response) {
        synchronized (lock) {
            if (done) {
                return;
            }
            try {
                out.onNext(response);
            } catch (RuntimeException cancelled) {
                done = true;
            }
        }
    }
}
