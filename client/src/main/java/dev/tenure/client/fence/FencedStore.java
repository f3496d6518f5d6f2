package dev.tenure.client.fence;

import dev.tenure.client.Kv;
import dev.tenure.client.StaleTokenException;
import java.util.Objects;

/**
 * A store that refuses writes carrying a stale fencing token: the write boundary that makes a
 * paused or partitioned former holder harmless. A lease cannot stop its holder from acting after
 * it lost the lock; a fenced store can stop the action from landing.
 *
 * <p>The contract every implementation keeps, per {@code resource} (the unit the store fences: a
 * key, a row set, an object, a partition):
 *
 * <ol>
 *   <li><b>Monotonic acceptance.</b> A write is applied only if its token is not lower than any
 *       token the store has already accepted for that resource. Equal is accepted (one holder
 *       writes many times). A store may be stricter (Tenure's KV accepts only the lock's current
 *       grant), never looser. So the tokens of the applied writes, in the order they were
 *       applied, never go down.
 *   <li><b>Atomic with the write.</b> The check and the write are one indivisible step: no write
 *       with a higher token can be accepted between them, so a write never lands after a newer
 *       holder's. A check followed by an unconditional write is not a fence.
 *   <li><b>Stale means nothing changed.</b> A refused write throws {@link StaleTokenException}
 *       and leaves no trace of itself. Any other failure (I/O, timeout) may leave the write's
 *       outcome unknown; it is never reported as a rejection.
 *   <li><b>Durable high-water mark.</b> The highest accepted token per resource survives restarts
 *       of the store for as long as the resource's data does.
 * </ol>
 *
 * <p>Tokens come from {@code Lease.fence(minRemaining)} right before the write; they are strictly
 * increasing per lock and globally, so "not lower" means "not superseded". See docs/fencing.md for
 * how to write one for another store.
 *
 * @param <C> what a write carries: bytes for a key-value store, a unit of SQL work, ...
 */
public interface FencedStore<C> {

    /**
     * Applies {@code change} to {@code resource} if {@code token} passes the fence, atomically.
     *
     * @param resource what is written; the fence's high-water mark is kept per resource
     * @param lock the lock whose grant {@code token} is (stores that verify tokens, or accept only
     *     the current grant, ask Tenure about it)
     * @param token the fencing token, from {@code lease.fence(minRemaining)}; positive
     * @throws StaleTokenException the token is stale (or, for a verifying store, not a genuine
     *     grant): nothing was written
     */
    void checkAndWrite(String resource, String lock, long token, C change);

    /**
     * Tenure's own fenced key-value store as a fenced store: the resource is the key, the change
     * is the value. Its check is stricter than the contract's minimum: the replicated state machine
     * accepts a write only if its token is the lock's <em>current</em> grant, decided in log order
     * together with grants and releases, so the check and the write are one log entry and no grant
     * can come between them.
     */
    static FencedStore<byte[]> of(Kv kv) {
        Objects.requireNonNull(kv, "kv");
        return (resource, lock, token, value) -> kv.put(resource, value, lock, token);
    }
}
