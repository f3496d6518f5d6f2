package dev.tenure.sim;

import dev.tenure.api.v1.AttachResponse;
import io.grpc.Status;

/**
 * A node's side of one call. Once the client cancelled (or its process died and the kernel
 * closed the connection) nothing more reaches it, as with a cancelled gRPC server call. A ghost
 * is the second copy of a duplicated request: it is served, but its answer goes nowhere.
 */
final class ServerCall implements AttachOut {
    final SimCall<?, ?> client;
    final boolean ghost;
    private final Runnable onDone;
    boolean cancelled;
    boolean done;
    AttachHandler attach;
    AttachManyHandler attachMany;
    ParkedAcquire acquire;

    ServerCall(SimCall<?, ?> client, boolean ghost, Runnable onDone) {
        this.client = client;
        this.ghost = ghost;
        this.onDone = onDone;
    }

    /** One stream message. */
    void send(Object message) {
        if (!done && reachable()) {
            client.down(message);
        }
    }

    /** A plain Attach call's response. */
    @Override
    public void send(AttachResponse response) {
        send((Object) response);
    }

    /** A unary answer: the message, then OK. */
    void reply(Object message) {
        if (!done) {
            done = true;
            onDone.run();
            if (reachable()) {
                client.reply(message);
            }
        }
    }

    /** Ends the call with {@code status} (OK completes a stream). */
    @Override
    public void close(Status status) {
        if (!done) {
            done = true;
            onDone.run();
            if (reachable()) {
                client.downClose(status);
            }
        }
    }

    @Override
    public boolean done() {
        return done;
    }

    private boolean reachable() {
        return !cancelled && !ghost;
    }
}
