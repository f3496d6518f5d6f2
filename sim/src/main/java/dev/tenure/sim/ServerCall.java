package dev.tenure.sim;

import dev.tenure.gateway.Answer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A node's side of one call, as the gateway sees a gRPC server call: the response side it writes
 * to, and for a stream the handler that reads the client's frames. Once the client cancelled (or
 * its process died and the kernel closed the connection) nothing more reaches it, as with a
 * cancelled gRPC server call. A ghost is the second copy of a duplicated request: it is served,
 * but its answer goes nowhere.
 */
final class ServerCall {
    final SimCall<?, ?> client;
    final boolean ghost;
    private final Runnable onDone;
    private @Nullable StreamObserver<Object> inbound; // a stream's handler; null for a unary call
    private @Nullable Runnable onCancel;
    private boolean cancelled;
    private boolean done;

    ServerCall(SimCall<?, ?> client, boolean ghost, Runnable onDone) {
        this.client = client;
        this.ghost = ghost;
        this.onDone = onDone;
    }

    @SuppressWarnings("unchecked")
    void serve(StreamObserver<?> handler) {
        this.inbound = (StreamObserver<Object>) handler;
    }

    boolean stream() {
        return inbound != null;
    }

    /** A frame of the client's stream. */
    void received(Object message) {
        Objects.requireNonNull(inbound, "only a stream, which serve() set up, has frames")
                .onNext(message);
    }

    void halfClosedByClient() {
        Objects.requireNonNull(inbound, "only a stream, which serve() set up, is half-closed")
                .onCompleted();
    }

    /** The client cancelled the call or its connection ended: the handler sees the stream break. */
    void cancelledByClient() {
        cancelled = true;
        if (inbound != null) {
            inbound.onError(Status.CANCELLED.withDescription("client cancelled").asRuntimeException());
        }
        Runnable handler = onCancel;
        onCancel = null;
        if (handler != null && !done) {
            handler.run();
        }
    }

    /** Where a stream's responses go. */
    <T> StreamObserver<T> responses() {
        return new StreamObserver<>() {
            @Override
            public void onNext(T message) {
                if (!done && reachable()) {
                    client.down(message);
                }
            }

            @Override
            public void onError(Throwable t) {
                close(Status.fromThrowable(t));
            }

            @Override
            public void onCompleted() {
                close(Status.OK);
            }
        };
    }

    /** Where a unary call's answer goes. */
    <T> Answer<T> answer() {
        return new Answer<>() {
            @Override
            public void ok(T response) {
                reply(response);
            }

            @Override
            public void fail(StatusRuntimeException error) {
                close(error.getStatus());
            }

            @Override
            public boolean cancelled() {
                return cancelled;
            }

            @Override
            public void onCancel(Runnable handler) {
                if (cancelled) {
                    handler.run();
                } else {
                    onCancel = handler;
                }
            }
        };
    }

    /** A unary answer: the message, then OK. */
    private void reply(Object message) {
        if (!done) {
            done = true;
            onDone.run();
            if (reachable()) {
                client.reply(message);
            }
        }
    }

    /** Ends the call with {@code status} (OK completes a stream). */
    void close(Status status) {
        if (!done) {
            done = true;
            onDone.run();
            if (reachable()) {
                client.downClose(status);
            }
        }
    }

    private boolean reachable() {
        return !cancelled && !ghost;
    }
}
