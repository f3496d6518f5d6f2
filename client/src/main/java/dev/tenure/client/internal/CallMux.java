package dev.tenure.client.internal;

import dev.tenure.api.StreamLimits;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.DowngradeRequest;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.ProclaimRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.client.spi.TimeSource;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A channel that carries the unary lock and key-value calls (Acquire to KvDelete) to its node as
 * frames of one Calls stream, and passes every other call to the channel under it. A frame on an
 * open stream spares client and node what each unary call costs them: a new HTTP/2 stream, its
 * headers and trailers, and on the client a hand-off to gRPC's executor (see BENCHMARKS.md,
 * 'Calls on one stream'). Each call still behaves as a unary call to whoever made it: the
 * same listener callbacks, its deadline (from its options and its context) and its cancellation
 * (which sends a Cancel frame, as a cancelled unary call resets its HTTP/2 stream).
 *
 * <p>The stream opens with the first call and stays open until {@link #close()}. When it breaks,
 * every call in flight on it fails with the stream's status (UNAVAILABLE for a lost connection,
 * which the Retrier retries under the same request id) and the next call opens a new stream. A
 * node that does not serve Calls (UNIMPLEMENTED) gets the calls in flight again as unary calls,
 * and every later one too. The stream carries at most a node's callsInFlightMax calls at once;
 * calls past it go as unary calls.
 */
public final class CallMux extends Channel {

    /** How a carried method's request goes into a frame, and its response comes out of one. */
    private record Carrier<Q, R>(
            BiConsumer<CallRequest.Builder, Q> put,
            CallResponse.KindCase kind,
            Function<CallResponse, R> take,
            ToLongFunction<Q> session) {}

    private static final Map<String, Carrier<?, ?>> CARRIED = new HashMap<>();

    static {
        carry(
                TenureGrpc.getAcquireMethod(),
                CallRequest.Builder::setAcquire,
                CallResponse.KindCase.ACQUIRE,
                CallResponse::getAcquire,
                AcquireRequest::getSessionId);
        carry(
                TenureGrpc.getReleaseMethod(),
                CallRequest.Builder::setRelease,
                CallResponse.KindCase.RELEASE,
                CallResponse::getRelease,
                ReleaseRequest::getSessionId);
        carry(
                TenureGrpc.getRenewLeaseMethod(),
                CallRequest.Builder::setRenewLease,
                CallResponse.KindCase.RENEW_LEASE,
                CallResponse::getRenewLease,
                RenewLeaseRequest::getSessionId);
        carry(
                TenureGrpc.getProclaimMethod(),
                CallRequest.Builder::setProclaim,
                CallResponse.KindCase.PROCLAIM,
                CallResponse::getProclaim,
                ProclaimRequest::getSessionId);
        carry(
                TenureGrpc.getDowngradeMethod(),
                CallRequest.Builder::setDowngrade,
                CallResponse.KindCase.DOWNGRADE,
                CallResponse::getDowngrade,
                DowngradeRequest::getSessionId);
        carry(
                TenureGrpc.getWriteCheckpointMethod(),
                CallRequest.Builder::setWriteCheckpoint,
                CallResponse.KindCase.WRITE_CHECKPOINT,
                CallResponse::getWriteCheckpoint,
                WriteCheckpointRequest::getSessionId);
        carry(
                TenureGrpc.getLockStatusMethod(),
                CallRequest.Builder::setLockStatus,
                CallResponse.KindCase.LOCK_STATUS,
                CallResponse::getLockStatus,
                q -> 0);
        carry(
                TenureGrpc.getListLocksMethod(),
                CallRequest.Builder::setListLocks,
                CallResponse.KindCase.LIST_LOCKS,
                CallResponse::getListLocks,
                q -> 0);
        carry(
                TenureGrpc.getKvPutMethod(),
                CallRequest.Builder::setKvPut,
                CallResponse.KindCase.KV_PUT,
                CallResponse::getKvPut,
                KvPutRequest::getSessionId);
        carry(
                TenureGrpc.getKvGetMethod(),
                CallRequest.Builder::setKvGet,
                CallResponse.KindCase.KV_GET,
                CallResponse::getKvGet,
                q -> 0);
        carry(
                TenureGrpc.getKvDeleteMethod(),
                CallRequest.Builder::setKvDelete,
                CallResponse.KindCase.KV_DELETE,
                CallResponse::getKvDelete,
                KvDeleteRequest::getSessionId);
    }

    private static <Q, R> void carry(
            MethodDescriptor<Q, R> method,
            BiConsumer<CallRequest.Builder, Q> put,
            CallResponse.KindCase kind,
            Function<CallResponse, R> take,
            ToLongFunction<Q> session) {
        CARRIED.put(method.getFullMethodName(), new Carrier<>(put, kind, take, session));
    }

    /** Hears of answers that prove a session ({@code CallResponse.session_attached}). */
    public interface Proofs {
        /** Session {@code sessionId}'s call, sent on {@code channel} at {@code sentNanos}, proves it. */
        void proved(Channel channel, long sessionId, long sentNanos);
    }

    private final Channel channel;
    private final Heard heard;
    private final TimeSource time;
    private final Proofs proofs;
    private @Nullable Stream current; // guarded by this
    private long nextId; // guarded by this
    private boolean unary; // guarded by this: the node does not serve Calls
    private boolean closed; // guarded by this
    /**
     * Calls the stream may carry at once: the default of a node's callsInFlightMax, or the lower
     * limit a node named when it refused one. Calls past it go as unary calls, so a client with
     * many calls in flight (waiting acquires) is never refused for it.
     */
    private int callsInFlightMax = StreamLimits.CALLS_IN_FLIGHT_MAX; // guarded by this

    /** @param heard what the channel has heard: each answer counts */
    public CallMux(Channel channel, Heard heard, TimeSource time, Proofs proofs) {
        this.channel = channel;
        this.heard = heard;
        this.time = time;
        this.proofs = proofs;
    }

    @Override
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
        @SuppressWarnings("unchecked")
        Carrier<Q, R> carrier = (Carrier<Q, R>) CARRIED.get(method.getFullMethodName());
        synchronized (this) {
            if (carrier == null || unary || closed) {
                return channel.newCall(method, options);
            }
        }
        return new MuxCall<>(method, carrier, options);
    }

    @Override
    public String authority() {
        return channel.authority();
    }

    /** Half-closes the stream: the node answers what is in flight, then ends it. */
    public void close() {
        Stream s;
        synchronized (this) {
            closed = true;
            s = current;
            current = null;
            if (s != null && s.requests != null && !s.dead) {
                try {
                    s.requests.onCompleted();
                } catch (RuntimeException alreadyEnded) {
                    // its onError tells the calls on it
                }
            }
        }
    }

    /** True while calls travel on a Calls stream (for tests). */
    synchronized boolean carrying() {
        return !unary && current != null && !current.dead;
    }

    /**
     * Sends {@code call}'s request on the stream, opening one if needed. Null if it went out;
     * UNIMPLEMENTED if it must go as a unary call; else why the stream failed at once.
     */
    private @Nullable Status send(MuxCall<?, ?> call, CallRequest.Builder frame) {
        synchronized (this) {
            if (unary || closed) {
                return Status.UNIMPLEMENTED;
            }
            Stream s = current;
            if (s == null) {
                s = new Stream();
                current = s;
                // The stream lives in the root context: a call made from inside a gRPC handler
                // must not end it with that handler's call. An immediate failure comes back
                // through s.onError, on this thread (the lock is reentrant) or once this returns.
                Stream opening = s;
                Context.ROOT.run(() -> TenureGrpc.newStub(channel).calls(opening));
            }
            if (s.dead) {
                return unary ? Status.UNIMPLEMENTED : s.failure;
            }
            if (s.pending.size() >= callsInFlightMax) {
                return Status.UNIMPLEMENTED; // this one as a unary call
            }
            long id = ++nextId;
            call.id = id;
            call.stream = s;
            s.pending.put(id, call);
            s.write(frame.setId(id).build());
            return null;
        }
    }

    /** Tells the node that the caller gave up on {@code call}, if it is still in flight. */
    private void withdraw(MuxCall<?, ?> call) {
        synchronized (this) {
            Stream s = call.stream;
            if (s != null && !s.dead && s.pending.remove(call.id, call)) {
                s.write(CallRequest.newBuilder()
                        .setId(call.id)
                        .setCancel(CallRequest.Cancel.getDefaultInstance())
                        .build());
            }
        }
    }

    /** One Calls stream and the calls in flight on it. */
    private final class Stream implements ClientResponseObserver<CallRequest, CallResponse> {
        final Map<Long, MuxCall<?, ?>> pending = new HashMap<>(); // guarded by CallMux.this

        @Nullable
        ClientCallStreamObserver<CallRequest> requests; // guarded by CallMux.this

        boolean dead; // guarded by CallMux.this

        @Nullable
        Status failure; // guarded by CallMux.this: why it died

        @Override
        public void beforeStart(ClientCallStreamObserver<CallRequest> requestStream) {
            synchronized (CallMux.this) {
                requests = requestStream;
            }
        }

        /** Under the mux's lock, so frames leave one at a time, in order. */
        void write(CallRequest frame) {
            if (dead || requests == null) {
                return; // the stream's end tells the calls on it
            }
            try {
                requests.onNext(frame);
            } catch (RuntimeException e) {
                // The call already ended; its onError tells every call in flight.
            }
        }

        @Override
        public void onNext(CallResponse response) {
            heard.at(time.nanoTime());
            MuxCall<?, ?> call;
            synchronized (CallMux.this) {
                call = pending.remove(response.getId());
            }
            if (call != null) {
                call.answered(response);
            }
        }

        @Override
        public void onError(Throwable t) {
            broken(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
            broken(Status.UNAVAILABLE.withDescription("the node ended the Calls stream"));
        }

        private void broken(Status status) {
            List<MuxCall<?, ?>> inFlight;
            boolean fallBack = status.getCode() == Status.Code.UNIMPLEMENTED;
            synchronized (CallMux.this) {
                dead = true;
                failure = status;
                if (current == this) {
                    current = null;
                }
                if (fallBack) {
                    unary = true;
                }
                inFlight = new ArrayList<>(pending.values());
                pending.clear();
            }
            for (MuxCall<?, ?> call : inFlight) {
                if (fallBack) {
                    call.sendUnary();
                } else {
                    call.close(status, null);
                }
            }
        }
    }

    /**
     * One carried call, as its caller sees it: a unary call. The listener hears exactly one close,
     * after the response if there is one.
     */
    private final class MuxCall<Q, R> extends ClientCall<Q, R> {
        final MethodDescriptor<Q, R> method;
        final Carrier<Q, R> carrier;
        final CallOptions options;
        final Context context = Context.current();
        final Context.CancellationListener onContextCancel = c -> cancel("context cancelled", c.cancellationCause());
        long id; // guarded by CallMux.this

        @Nullable
        Stream stream; // guarded by CallMux.this

        private @Nullable Listener<R> listener;
        private @Nullable Q request;
        private volatile long sentNanos;
        private TimeSource.@Nullable Cancellable deadline; // guarded by this
        private boolean failedEarly; // set by start, read by halfClose on the caller's thread
        private @Nullable ClientCall<Q, R> unaryCall; // guarded by this: the node does not serve Calls
        private boolean done; // guarded by this: the listener was closed, or handed to unaryCall

        MuxCall(MethodDescriptor<Q, R> method, Carrier<Q, R> carrier, CallOptions options) {
            this.method = method;
            this.carrier = carrier;
            this.options = options;
        }

        @Override
        public void start(Listener<R> responseListener, Metadata headers) {
            listener = responseListener;
            if (context.isCancelled()) {
                failEarly(Status.CANCELLED.withDescription("context already cancelled"));
                return;
            }
            context.addListener(onContextCancel, Runnable::run);
            Deadline d = earliest(options.getDeadline(), context.getDeadline());
            if (d != null) {
                long left = d.timeRemaining(TimeUnit.NANOSECONDS);
                if (left <= 0) {
                    failEarly(Status.DEADLINE_EXCEEDED.withDescription("deadline passed before the call started"));
                    return;
                }
                TimeSource.Cancellable timer = time.schedule(this::expired, left);
                synchronized (this) {
                    deadline = timer;
                }
            }
        }

        /** As gRPC does, the listener hears of a call that fails at its start only after start returns. */
        private void failEarly(Status status) {
            failedEarly = true;
            time.schedule(() -> close(status, null), 0);
        }

        @Override
        public void request(int numMessages) {
            // A unary call's one response is always delivered.
        }

        @Override
        public void sendMessage(Q message) {
            request = message;
        }

        @Override
        public void halfClose() {
            synchronized (this) {
                if (done || failedEarly) {
                    return;
                }
            }
            CallRequest.Builder frame = CallRequest.newBuilder();
            carrier.put().accept(frame, request);
            // Dated before it leaves, as a keepalive is: the node's check comes later.
            sentNanos = time.nanoTime();
            Status failed = send(this, frame);
            if (failed == null) {
                return;
            }
            if (failed.getCode() == Status.Code.UNIMPLEMENTED) {
                sendUnary();
            } else {
                close(failed, null);
            }
        }

        @Override
        public void cancel(String message, Throwable cause) {
            ClientCall<Q, R> passOn;
            synchronized (this) {
                passOn = unaryCall;
            }
            if (passOn != null) {
                passOn.cancel(message, cause);
                return;
            }
            if (close(Status.CANCELLED.withDescription(message).withCause(cause), null)) {
                withdraw(this);
            }
        }

        private void expired() {
            if (close(
                    Status.DEADLINE_EXCEEDED.withDescription("call deadline passed (carried on a Calls stream)"),
                    null)) {
                withdraw(this);
            }
        }

        void answered(CallResponse response) {
            int limit = response.getFailed().getCallsInFlightMax();
            if (limit > 0) {
                // Refused for the stream's limit, before anything was done: sent again as a unary
                // call, and no more than the node's limit on the stream from now on.
                synchronized (CallMux.this) {
                    callsInFlightMax = Math.min(callsInFlightMax, limit);
                }
                sendUnary();
            } else if (response.getKindCase() == CallResponse.KindCase.FAILED) {
                close(
                        Status.fromCodeValue(response.getFailed().getCode())
                                .withDescription(response.getFailed().getMessage()),
                        null);
            } else if (response.getKindCase() != carrier.kind()) {
                close(
                        Status.INTERNAL.withDescription(
                                "the node answered " + method.getBareMethodName() + " with " + response.getKindCase()),
                        null);
            } else {
                if (response.getSessionAttached()) {
                    // Before the caller hears the answer: what it does next may count on the proof.
                    proofs.proved(channel, carrier.session().applyAsLong(request), sentNanos);
                }
                close(Status.OK, carrier.take().apply(response));
            }
        }

        /** Makes the call again as a unary call, whose listener from now on is the caller's. */
        void sendUnary() {
            ClientCall<Q, R> call;
            synchronized (this) {
                if (done) {
                    return;
                }
                done = true;
                // In the caller's context, as the carried call was: it cancels the unary one too.
                Context previous = context.attach();
                try {
                    call = channel.newCall(method, options);
                } finally {
                    context.detach(previous);
                }
                unaryCall = call;
                stopTimers();
            }
            call.start(listener, new Metadata());
            call.request(2);
            call.sendMessage(request);
            call.halfClose();
        }

        /** Closes the listener once; true if this did. */
        boolean close(Status status, @Nullable R response) {
            synchronized (this) {
                if (done) {
                    return false;
                }
                done = true;
                stopTimers();
            }
            Listener<R> l = listener;
            if (l == null) {
                return true; // cancelled before it started: there is no listener to tell
            }
            if (response != null) {
                l.onHeaders(new Metadata());
                l.onMessage(response);
            }
            l.onClose(status, new Metadata());
            return true;
        }

        private void stopTimers() {
            if (deadline != null) {
                deadline.cancel();
            }
            context.removeListener(onContextCancel);
        }
    }

    private static Deadline earliest(Deadline a, Deadline b) {
        if (a == null) {
            return b;
        }
        return b == null ? a : a.minimum(b);
    }
}
