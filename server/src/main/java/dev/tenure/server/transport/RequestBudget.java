package dev.tenure.server.transport;

import com.google.protobuf.MessageLite;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.TenureGrpc;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the bytes of requests a node holds for its clients, per connection ({@code
 * requestBytesMax}) and over the node ({@code nodeRequestBytesMax}).
 *
 * <p>gRPC reads a request as soon as its call asks for it, and hands the read bytes back to the
 * client's HTTP/2 flow control window at once, message cut short or not: a client that opens
 * streams by the hundred and sends a large message on each makes the node hold every one of them
 * (in Netty's direct buffers while they arrive, then in the heap until the log answers). So each
 * message a call asks for is paid for before it is asked for: {@code messageBytesMax}, the most it
 * can be, until it arrives; then its own size, while the node holds it: a unary call's until its
 * answer, a Calls stream's call until the answer with its id, a session stream's frame only while
 * it is handled. A call not yet asked for its message costs the node no more than its share of the
 * connection's flow control window.
 *
 * <p>What does not fit is not read. A unary call is refused at once, RESOURCE_EXHAUSTED naming the
 * limit, before its message is read: it changed nothing, and its bytes are dropped with its
 * stream. A Calls stream reads its next call once there is room (HTTP/2 flow control holds its
 * client meanwhile), so its answered calls make the room. Session streams (Attach, AttachMany)
 * carry the keepalives and echoes that keep leases: they are neither counted nor held back, so no
 * flood of other calls delays them. Their frames are small, but nothing here bounds a client that
 * sends large ones on many session streams at once (at most callsPerConnectionMax per connection,
 * each up to messageBytesMax).
 */
public final class RequestBudget implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(RequestBudget.class);

    private static final Set<String> SESSION_STREAMS = Set.of(
            TenureGrpc.getAttachMethod().getFullMethodName(),
            TenureGrpc.getAttachManyMethod().getFullMethodName());
    private static final String CALLS = TenureGrpc.getCallsMethod().getFullMethodName();

    private final Connections connections;
    private final long messageBytesMax;
    private final ThrottledLog refusals = new ThrottledLog(LOG);
    private final AtomicLong refused = new AtomicLong();
    private long node; // guarded by this
    /** Streams waiting for room to read their next message, in the order they asked. */
    private final ArrayDeque<Stream<?, ?>> waiting = new ArrayDeque<>(); // guarded by this

    public RequestBudget(Connections connections, long messageBytesMax) {
        this.connections = connections;
        this.messageBytesMax = messageBytesMax;
    }

    /** Bytes of requests the node holds or has room reserved for now. */
    public synchronized long nodeBytes() {
        return node;
    }

    /** Calls refused since the node started. */
    long refused() {
        return refused.get();
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        Connection connection = connections.find(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
        if (connection == null) {
            return next.startCall(call, headers); // not a connection this port accepted (in-process)
        }
        MethodDescriptor<Q, R> method = call.getMethodDescriptor();
        if (method.getType() == MethodDescriptor.MethodType.UNARY) {
            Holding holding = new Holding(connection);
            String refusal = holding.reserveBulk();
            if (refusal != null) {
                long count = refused.incrementAndGet();
                refusals.log(() -> "tenure: refused a request from " + connection.remote + ": " + refusal + "; " + count
                        + " refused since the node started");
                call.close(Status.RESOURCE_EXHAUSTED.withDescription(refusal), new Metadata());
                return new ServerCall.Listener<>() {};
            }
            Unary<Q, R> unary = new Unary<>(call, holding);
            return unary.new Heard(next.startCall(unary, headers));
        }
        String name = method.getFullMethodName();
        if (SESSION_STREAMS.contains(name)) {
            return next.startCall(call, headers); // keepalives and echoes wait for nothing
        }
        Stream<Q, R> stream = new Stream<>(call, new Holding(connection), name.equals(CALLS));
        return stream.new Heard(next.startCall(stream, headers));
    }

    /** Whether one more message of {@code messageBytesMax} fits on {@code connection} and the node; guarded by this. */
    private boolean fits(Connection connection) {
        long more = messageBytesMax;
        return connection.requestBytes + more <= connections.limits().requestBytesMax()
                && node + more <= connections.limits().nodeRequestBytesMax();
    }

    /** Adds {@code delta} to what {@code connection} and the node hold; guarded by this. */
    private void change(Connection connection, long delta) {
        connection.requestBytes += delta;
        node += delta;
    }

    /** Gives waiting streams the room there is now, first come first served; they ask for their messages after. */
    private void grantWaiting() {
        List<Stream<?, ?>> granted = new ArrayList<>();
        synchronized (this) {
            Iterator<Stream<?, ?>> it = waiting.iterator();
            while (it.hasNext()) {
                Stream<?, ?> s = it.next();
                while (s.wanted > 0 && !s.holding.released && fits(s.holding.connection)) {
                    s.wanted--;
                    s.holding.outstanding++;
                    change(s.holding.connection, messageBytesMax);
                    granted.add(s);
                }
                if (s.wanted == 0 || s.holding.released) {
                    it.remove();
                }
            }
        }
        for (Stream<?, ?> s : granted) {
            s.askOne();
        }
    }

    /** A request message as parsed, or what MalformedRequests made of it. */
    private static @Nullable Object unwrapped(Object message) {
        return message instanceof MalformedRequests.Parsed<?> parsed ? parsed.message() : message;
    }

    private static long sizeOf(@Nullable Object message) {
        return message instanceof MessageLite m ? m.getSerializedSize() : 0;
    }

    /** What one call holds of the budget: room for the messages it asked for, and the messages it keeps. */
    private final class Holding {
        final Connection connection;
        int outstanding; // messages asked for and not yet arrived; guarded by RequestBudget.this
        long kept; // bytes of messages arrived and kept; guarded by RequestBudget.this
        boolean released; // guarded by RequestBudget.this

        Holding(Connection connection) {
            this.connection = connection;
        }

        /** Room for a unary call's one message (null), or why there is none. */
        @Nullable
        String reserveBulk() {
            synchronized (RequestBudget.this) {
                if (fits(connection)) {
                    outstanding = 1;
                    change(connection, messageBytesMax);
                    return null;
                }
                long perConnection = connections.limits().requestBytesMax();
                if (connection.requestBytes + messageBytesMax > perConnection) {
                    return "requestBytesMax: requests in flight on this connection hold " + connection.requestBytes
                            + " bytes, and one more may take " + messageBytesMax + " (messageBytesMax) of the "
                            + perConnection + " a connection may hold (--request-bytes-max): this call was refused"
                            + " before its request was read and changed nothing";
                }
                return "nodeRequestBytesMax: requests in flight hold " + node + " bytes of this node's memory, and"
                        + " one more may take " + messageBytesMax + " (messageBytesMax) of the "
                        + connections.limits().nodeRequestBytesMax()
                        + " the node may hold (--node-request-bytes-max): this call was refused before its request"
                        + " was read and changed nothing";
            }
        }

        /** A message arrived: its room becomes its own size, {@code keep} or not. */
        void arrived(long bytes, boolean keep) {
            synchronized (RequestBudget.this) {
                if (released) {
                    return;
                }
                outstanding--;
                change(connection, -messageBytesMax);
                if (keep) {
                    kept += bytes;
                    change(connection, bytes);
                }
            }
            grantWaiting();
        }

        /** {@code bytes} of kept messages are let go (their answer went out). */
        void answered(long bytes) {
            synchronized (RequestBudget.this) {
                if (released || bytes == 0) {
                    return;
                }
                kept -= bytes;
                change(connection, -bytes);
            }
            grantWaiting();
        }

        /**
         * The client half-closed its side: no message it was given room for can come any more.
         * A server-streaming call (Watch) is asked for two messages and sends one, so without this
         * every open watch would hold messageBytesMax for its whole life.
         */
        void halfClosed() {
            synchronized (RequestBudget.this) {
                if (released) {
                    return;
                }
                change(connection, -outstanding * messageBytesMax);
                outstanding = 0;
            }
            grantWaiting();
        }

        /** The call is over: everything it held is let go. */
        void release() {
            synchronized (RequestBudget.this) {
                if (released) {
                    return;
                }
                released = true;
                change(connection, -(outstanding * messageBytesMax + kept));
                outstanding = 0;
                kept = 0;
            }
            grantWaiting();
        }
    }

    /** A call that holds room in the budget, all of it let go once the call closes. */
    private abstract static class HeldCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
        final Holding holding;

        HeldCall(ServerCall<Q, R> call, Holding holding) {
            super(call);
            this.holding = holding;
        }

        @Override
        public void close(Status status, Metadata trailers) {
            try {
                super.close(status, trailers);
            } finally {
                holding.release();
            }
        }
    }

    /** A call's listener: what the call holds is let go once the client cancels or completes it. */
    private abstract static class ReleasingListener<Q>
            extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final Holding holding;

        ReleasingListener(ServerCall.Listener<Q> delegate, Holding holding) {
            super(delegate);
            this.holding = holding;
        }

        @Override
        public void onCancel() {
            holding.release();
            super.onCancel();
        }

        @Override
        public void onComplete() {
            holding.release();
            super.onComplete();
        }
    }

    /** A unary call: its one message's room from the start, its size once it arrived, until the call ends. */
    private static final class Unary<Q, R> extends HeldCall<Q, R> {
        Unary(ServerCall<Q, R> call, Holding holding) {
            super(call, holding);
        }

        private final class Heard extends ReleasingListener<Q> {
            private boolean arrived; // listener events come one at a time

            Heard(ServerCall.Listener<Q> delegate) {
                super(delegate, holding);
            }

            @Override
            public void onMessage(Q message) {
                if (!arrived) {
                    arrived = true;
                    holding.arrived(sizeOf(unwrapped(message)), true);
                }
                super.onMessage(message);
            }
        }
    }

    /**
     * A streaming call: each message it asks for is asked for only once there is room; a Calls
     * stream keeps each call's bytes until the answer with its id goes out.
     */
    private final class Stream<Q, R> extends HeldCall<Q, R> {
        private final boolean calls;
        /** Messages asked for that wait for room; guarded by RequestBudget.this. */
        int wanted;
        /** The bytes of each Calls stream call until its answer; guarded by this map. */
        private final Map<Long, Long> keptById = new HashMap<>();

        Stream(ServerCall<Q, R> call, Holding holding, boolean calls) {
            super(call, holding);
            this.calls = calls;
        }

        @Override
        public void request(int messages) {
            int now = 0;
            synchronized (RequestBudget.this) {
                if (holding.released) {
                    return;
                }
                for (int i = 0; i < messages; i++) {
                    if (wanted == 0 && fits(holding.connection)) {
                        holding.outstanding++;
                        change(holding.connection, messageBytesMax);
                        now++;
                    } else {
                        if (wanted == 0) {
                            waiting.add(this);
                        }
                        wanted++;
                    }
                }
            }
            if (now > 0) {
                super.request(now);
            }
        }

        void askOne() {
            super.request(1);
        }

        @Override
        public void sendMessage(R message) {
            if (calls && message instanceof CallResponse answer) {
                Long bytes;
                synchronized (keptById) {
                    bytes = keptById.remove(answer.getId());
                }
                if (bytes != null) {
                    holding.answered(bytes);
                }
            }
            super.sendMessage(message);
        }

        private final class Heard extends ReleasingListener<Q> {
            Heard(ServerCall.Listener<Q> delegate) {
                super(delegate, holding);
            }

            @Override
            public void onMessage(Q message) {
                Object m = unwrapped(message);
                if (calls && m instanceof CallRequest call) {
                    boolean cancel = call.getKindCase() == CallRequest.KindCase.CANCEL;
                    long bytes = sizeOf(call);
                    Long before;
                    synchronized (keptById) {
                        before = cancel ? keptById.remove(call.getId()) : keptById.put(call.getId(), bytes);
                    }
                    holding.arrived(bytes, !cancel);
                    if (before != null) {
                        holding.answered(before);
                    }
                } else {
                    holding.arrived(0, false);
                }
                super.onMessage(message);
            }

            @Override
            public void onHalfClose() {
                synchronized (RequestBudget.this) {
                    wanted = 0; // grantWaiting drops it from the waiting streams
                }
                holding.halfClosed();
                super.onHalfClose();
            }
        }
    }
}
