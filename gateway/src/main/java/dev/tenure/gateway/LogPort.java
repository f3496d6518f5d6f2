package dev.tenure.gateway;

import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import java.util.concurrent.CompletableFuture;

/**
 * Where the gateway submits to the replicated log. The server's implementation is its one Aeron
 * Cluster client; the simulation's is its simulated log. Either way the state machine's events
 * come back the other way, through {@link Gateway#onEvent}.
 */
public interface LogPort {
    /**
     * Sends {@code command} into the log. The future completes with its reply once the command is
     * committed and applied, or fails if the log did not answer in time: the command may or may
     * not have landed, which the request id of a retry makes harmless.
     */
    CompletableFuture<Reply> submit(LogCommand.Builder command);

    /**
     * Renews {@code sessionId} in the next keepalive batch. Completes with true once the renewal is
     * committed, false if the session no longer exists; fails if the log did not answer in time.
     * Never completes true before the commit: the client's horizon counts on it.
     */
    CompletableFuture<Boolean> renewSession(long sessionId);
}
