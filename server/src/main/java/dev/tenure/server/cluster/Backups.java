package dev.tenure.server.cluster;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The backups this node's gateway has logged and waits for. The gateway's reply comes from the
 * leader, possibly before this node's replica has applied the entry; the replica hands the state
 * here when it does, encoded at that entry's position. A replica on a node that logged no backup
 * of that id encodes nothing: what it does changes no state.
 */
public final class Backups {

    /** The state at one log position, as the replica encoded it. */
    // The bytes are handed on once and never changed: no copy of a state that may be large.
    @SuppressWarnings("ArrayRecordComponent")
    public record Taken(long logPosition, long lastToken, long createdAtMs, byte[] snapshot) {}

    private final Map<Long, CompletableFuture<Taken>> pending = new ConcurrentHashMap<>();

    /** Registers backup {@code id} before it is logged; the future completes when this replica applies it. */
    public CompletableFuture<Taken> expect(long id) {
        return pending.computeIfAbsent(id, k -> new CompletableFuture<>());
    }

    /** Drops {@code id}, taken or not (the call ended). */
    public void forget(long id) {
        pending.remove(id);
    }

    /** On the service thread, right after applying backup {@code id}: encodes only if this node waits for it. */
    void applied(long id, Supplier<Taken> take) {
        CompletableFuture<Taken> future = pending.get(id);
        if (future != null && !future.isDone()) {
            future.complete(take.get());
        }
    }
}
