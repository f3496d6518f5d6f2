package dev.tenure.server.transport;

import com.google.protobuf.MessageLite;
import dev.tenure.server.transport.Connections.Connection;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds what the node keeps for clients that do not read their streams. An answer gRPC cannot
 * send yet (the client's HTTP/2 window is full, or its socket) stays in the node's memory, with no
 * back-pressure on the gateway, which answers whenever the log does: a client that sends calls on
 * a Calls stream and never reads would grow the node until it runs out of memory.
 *
 * <p>So each stream's answers that leave while gRPC says the call is not ready (over its 32 KiB
 * threshold) are counted, per connection and over the node, until the call is ready again. Past
 * {@code unsentBytesMax} on a connection, or {@code nodeUnsentBytesMax} on the node, the call is
 * ended RESOURCE_EXHAUSTED "client not reading: ..." (which reaches the client after what is
 * queued, if it reads again), the handler hears it cancelled (an Attach stream then ends its
 * sessions after their disconnect grace, as for a closed connection: a client that cannot read its
 * stream cannot prove it holds its leases), and the connection is closed a second later unless
 * the call ended by then: gRPC lets go of what it queued for a call only with its connection.
 * A client that keeps up is never counted: only one that falls behind can be cut off, for what
 * it leaves waiting on its connection, or when it falls behind while those that do not read
 * already hold the node's share.
 *
 * <p>Unary calls carry one answer each and are left alone. For streams, an answer costs a check
 * of {@code isReady()} while the client keeps up, and an atomic add per answer while it does not.
 */
public final class SlowReaders implements ServerInterceptor {
    /** How long a client cut off has to take what was queued for it and the status, before its connection is closed. */
    static final long LINGER_MS = 1_000;

    /**
     * What a queued answer costs beyond its protobuf bytes: gRPC's 5-byte prefix, and the buffer,
     * write command, promise and flow-control entry Netty keeps for it (about 230 bytes of heap
     * for an echo's answer: BENCHMARKS.md, 'Connection floods and clients that do not read').
     * Counted per answer, so a flood of tiny answers is bounded by what it really holds.
     */
    static final int ANSWER_OVERHEAD_BYTES = 256;

    private final Connections connections;

    public SlowReaders(Connections connections) {
        this.connections = connections;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        if (call.getMethodDescriptor().getType() == MethodDescriptor.MethodType.UNARY) {
            return next.startCall(call, headers);
        }
        Connection connection = connections.find(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        if (connection == null) {
            return next.startCall(call, headers); // not a connection this port accepted (in-process)
        }
        Watched<Q, R> watched = new Watched<>(call, connection);
        return watched.new Heard(next.startCall(watched, headers));
    }

    /**
     * One streaming call. Its outbound methods are called one at a time (gRPC requires it, and the
     * gateway's streams send under their own locks); its listener runs on the transport's thread.
     */
    private final class Watched<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
        private final Connection connection;
        /** Bytes this call sent while not ready, counted in its connection's and the node's. */
        private final AtomicLong unsent = new AtomicLong();

        private final AtomicInteger unsentAnswers = new AtomicInteger();
        private volatile boolean cut;
        private volatile boolean ended;
        private boolean closed; // by the caller's turns

        Watched(ServerCall<Q, R> call, Connection connection) {
            super(call);
            this.connection = connection;
        }

        @Override
        public void sendMessage(R message) {
            if (cut) {
                return;
            }
            if (!delegate().isReady()) {
                long bytes =
                        (long) ANSWER_OVERHEAD_BYTES + (message instanceof MessageLite m ? m.getSerializedSize() : 0);
                long onConnection = connection.unsent.addAndGet(bytes);
                long onNode = connections.unsent(bytes);
                unsent.addAndGet(bytes);
                int answers = unsentAnswers.incrementAndGet();
                if (onConnection > connections.limits().unsentBytesMax()
                        || onNode > connections.limits().nodeUnsentBytesMax()) {
                    cutOff(answers, onConnection, onNode);
                    return;
                }
            }
            super.sendMessage(message);
        }

        @Override
        public void sendHeaders(Metadata headers) {
            if (!cut) {
                super.sendHeaders(headers);
            }
        }

        @Override
        public void close(Status status, Metadata trailers) {
            if (!cut && !closed) {
                closed = true;
                super.close(status, trailers);
            }
        }

        @Override
        public boolean isReady() {
            return !cut && super.isReady();
        }

        private void cutOff(int answers, long onConnection, long onNode) {
            cut = true;
            String why = onConnection > connections.limits().unsentBytesMax()
                    ? "client not reading: " + answers + " answers on this call and " + onConnection
                            + " bytes on its connection wait for it, past unsentBytesMax ("
                            + connections.limits().unsentBytesMax() + " bytes)"
                    : "client not reading: " + answers + " answers on this call wait for it, and clients that do"
                            + " not read hold " + onNode + " bytes of this node's answers, past nodeUnsentBytesMax ("
                            + connections.limits().nodeUnsentBytesMax() + " bytes)";
            connections.cutOff(connection, why + "; " + getMethodDescriptor().getBareMethodName() + " ended");
            if (!closed) {
                closed = true;
                super.close(Status.RESOURCE_EXHAUSTED.withDescription(why), new Metadata());
            }
            connection.closeAfter(LINGER_MS, () -> ended);
        }

        /** Gives back what this call counted: it is ready (what it queued went out) or over. */
        private void sent() {
            long bytes = unsent.getAndSet(0);
            unsentAnswers.set(0);
            if (bytes != 0) {
                connection.unsent.addAndGet(-bytes);
                connections.unsent(-bytes);
            }
        }

        /** The call's listener: once cut off, its handler hears nothing more from the client, then a cancel. */
        private final class Heard extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
            Heard(ServerCall.Listener<Q> delegate) {
                super(delegate);
            }

            @Override
            public void onMessage(Q message) {
                if (!cut) {
                    super.onMessage(message);
                }
            }

            @Override
            public void onHalfClose() {
                if (!cut) {
                    super.onHalfClose();
                }
            }

            @Override
            public void onReady() {
                sent();
                if (!cut) {
                    super.onReady();
                }
            }

            @Override
            public void onCancel() {
                ended = true;
                sent();
                super.onCancel();
            }

            /**
             * A call cut off that completes (its client read what was queued, and the status) ended
             * all the same: its handler must hear it as a cancel, as a stream handler hears nothing
             * of a completion (an Attach stream would keep its sessions bound to it).
             */
            @Override
            public void onComplete() {
                ended = true;
                sent();
                if (cut) {
                    super.onCancel();
                } else {
                    super.onComplete();
                }
            }
        }
    }
}
