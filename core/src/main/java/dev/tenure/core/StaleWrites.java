package dev.tenure.core;

/**
 * The rejected stale writes of one lock: fenced KV puts and deletes, checkpoints and releases
 * whose token was not the lock's current grant. Replicated state (in snapshots), so the count
 * survives restarts and is the same on every node.
 *
 * @param count how many were rejected
 * @param lastToken the token the last rejected write carried
 * @param lastCurrentToken the lock's current token when it was rejected (0 if the lock was free)
 * @param lastTarget what it tried to change: {@code kv:KEY}, {@code checkpoint} or {@code release}
 * @param lastAtMs state-machine time of the last rejection
 */
public record StaleWrites(long count, long lastToken, long lastCurrentToken, String lastTarget, long lastAtMs) {
    public static final StaleWrites NONE = new StaleWrites(0, 0, 0, "", 0);

    StaleWrites plus(long token, long currentToken, String target, long atMs) {
        return new StaleWrites(count + 1, token, currentToken, target, atMs);
    }
}
