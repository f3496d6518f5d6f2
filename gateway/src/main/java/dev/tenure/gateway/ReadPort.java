package dev.tenure.gateway;

import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import java.util.concurrent.CompletableFuture;

/**
 * Where the gateway serves reads (a lock's status, a KV get, a page of the listing) without
 * writing them into the log: from this node's replica, at a log position proven to follow every
 * write committed before the read arrived. The server's implementation is its read index; a
 * gateway without one (the simulation's) reads through the log.
 */
public interface ReadPort {
    /**
     * Whether reads go through this port now; else through the log. A port may serve on some
     * nodes only (the server's, on the leader's); both ways are linearizable, so a read that
     * crosses a change of this answer is still answered right.
     */
    boolean serving();

    /**
     * Answers {@code read} as the log would have at a position after its arrival. The future
     * fails, as {@link LogPort#submit} does, when no such position was proven in time.
     */
    CompletableFuture<Reply> read(LogCommand.Builder read);
}
