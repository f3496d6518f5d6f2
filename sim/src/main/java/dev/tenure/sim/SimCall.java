package dev.tenure.sim;

import dev.tenure.api.v1.TenureGrpc;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;

/**
 * One gRPC call of a client process to one node, carried over the simulated {@link Network}.
 * The client library talks to it exactly as to a real call (through the generated stubs), so
 * its stream handling, retries and failover run unchanged.
 *
 * <p>Frames of one call keep their order in each direction. A unary call's request or reply may
 * be lost; in TCP terms its connection broke, so after a detection delay the caller sees the call
 * fail (UNAVAILABLE, which the client retries) and the node sees it cancelled. Call deadlines are
 * not simulated: gRPC measures them on the system clock, which a replayable run cannot read.
 *
 * <p>Like gRPC's own call, it is bound to the caller's {@link Context}: cancelling that context
 * cancels the call (the Retrier withdraws an attempt this way).
 */
final class SimCall<Q, R> extends ClientCall<Q, R> {
    final long id;
    final ClientProcess process;
    final int node;
    final MethodDescriptor<Q, R> method;
    private final World world;
    private final Context context;
    private final Context.CancellationListener onContextCancel =
            c -> cancel("context cancelled", c.cancellationCause());
    // Set by start(), which gRPC's ClientCall contract puts before every other call: never read unset.
    @SuppressWarnings("NullAway.Init")
    private Listener<R> listener;

    private boolean halfClosed;
    private boolean cancelled;
    private boolean closed;
    private long upFloorNanos;
    private long downFloorNanos;

    SimCall(World world, ClientProcess process, int node, MethodDescriptor<Q, R> method) {
        this.world = world;
        this.id = world.nextCallId();
        this.process = process;
        this.node = node;
        this.method = method;
        this.context = Context.current();
    }

    boolean unary() {
        return method.getType() == MethodDescriptor.MethodType.UNARY;
    }

    /** An AttachMany call: the sessions on it are told apart by the ref each frame carries. */
    boolean attachMany() {
        return method.getFullMethodName()
                .equals(TenureGrpc.getAttachManyMethod().getFullMethodName());
    }

    /** A Calls stream: unary calls carried as frames. */
    boolean carriesCalls() {
        return method.getFullMethodName().equals(TenureGrpc.getCallsMethod().getFullMethodName());
    }

    String name() {
        return method.getBareMethodName() + "#" + id;
    }

    @Override
    public void start(Listener<R> responseListener, Metadata headers) {
        this.listener = responseListener;
        if (context.isCancelled()) {
            closeSoon(Status.CANCELLED.withDescription("context already cancelled"));
            return;
        }
        context.addListener(onContextCancel, Runnable::run);
        up(g -> g.open(this));
    }

    @Override
    public void request(int numMessages) {
        // Flow control is not simulated: every frame is delivered as it arrives.
    }

    @Override
    public void sendMessage(Q message) {
        if (cancelled || halfClosed) {
            throw new IllegalStateException("call " + name() + " is " + (cancelled ? "cancelled" : "half-closed"));
        }
        if (closed) {
            return; // the server already ended the call; like gRPC, the message goes nowhere
        }
        if (unary() && world.network.lose()) {
            world.trace.add(process.name() + " lost request " + name());
            failAfterLoss();
            return;
        }
        up(g -> g.message(this, message));
        if (unary() && world.network.duplicate()) {
            world.trace.add(process.name() + " duplicated request " + name());
            up(g -> g.duplicate(this, message));
        }
    }

    @Override
    public void halfClose() {
        if (!closed && !cancelled) {
            halfClosed = true;
            up(g -> g.halfClosed(this));
        }
    }

    @Override
    public void cancel(String message, Throwable cause) {
        if (closed || cancelled) {
            return;
        }
        cancelled = true;
        world.trace.add(process.name() + " cancels " + name() + " on n" + node);
        up(g -> g.cancelled(this));
        closeSoon(Status.CANCELLED.withDescription(message).withCause(cause));
    }

    /** The process died and its kernel closed the connection: the node sees the call end. */
    void connectionClosedByCrash() {
        if (!closed && !cancelled) {
            cancelled = true;
            up(g -> g.cancelled(this));
        }
    }

    // ---- frames from the node ----

    /** A stream message, delivered in order after the ones sent before it. */
    void down(Object message) {
        deliverDown(() -> onMessage(message));
    }

    /** A unary reply (message, then OK); it may be lost. */
    void reply(Object message) {
        if (world.network.lose()) {
            world.trace.add("n" + node + " lost reply " + name());
            failAfterLoss();
            return;
        }
        deliverDown(() -> {
            onMessage(message);
            onClose(Status.OK);
        });
    }

    void downClose(Status status) {
        deliverDown(() -> onClose(status));
    }

    private void onMessage(Object message) {
        if (!closed && !cancelled) { // gRPC delivers nothing more once the caller cancelled
            @SuppressWarnings("unchecked")
            R response = (R) message;
            listener.onMessage(response);
        }
    }

    private void onClose(Status status) {
        if (!closed) {
            closed = true; // before the listener runs: it may cancel the call's context in turn
            context.removeListener(onContextCancel);
            process.untrack(this);
            listener.onClose(status, new Metadata());
        }
    }

    private void up(java.util.function.Consumer<Node> atNode) {
        long at = world.network.arrivalNanos(world.loop.nowNanos(), process.slot, node, Network.Dir.UP);
        upFloorNanos = Math.max(upFloorNanos, at);
        Node target = world.nodes.get(node);
        world.loop.at(upFloorNanos, null, () -> atNode.accept(target));
    }

    private void deliverDown(Runnable atClient) {
        long at = world.network.arrivalNanos(world.loop.nowNanos(), process.slot, node, Network.Dir.DOWN);
        downFloorNanos = Math.max(downFloorNanos, at);
        world.loop.at(downFloorNanos, process, atClient);
    }

    private void closeSoon(Status status) {
        world.loop.after(0, process, () -> onClose(status));
    }

    /**
     * A lost frame is a failed connection in TCP terms: after a while the caller sees the call fail
     * (retryable) and the node sees it cancelled, as when gRPC gives up on a broken connection.
     */
    private void failAfterLoss() {
        world.loop.after(world.network.lossDetectionNanos(), process, () -> {
            if (!closed && !cancelled) {
                cancelled = true;
                up(g -> g.cancelled(this));
                onClose(Status.UNAVAILABLE.withDescription("connection lost (simulated)"));
            }
        });
    }
}
