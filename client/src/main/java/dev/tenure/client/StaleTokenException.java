package dev.tenure.client;

import org.jspecify.annotations.Nullable;

/**
 * A write or a release was refused for its token, and nothing of it was applied: stop acting as
 * the holder, do not retry with the same token. The one exception for a refused stale token;
 * {@link #code()} says which refusal:
 *
 * <ul>
 *   <li>{@link Code#STALE_TOKEN}: the token lost to a newer one. Tenure's KV or a checkpoint (the
 *       token is not the lock's current grant) or any {@link dev.tenure.client.fence.FencedStore}
 *       (a higher token was accepted for the resource).
 *   <li>{@link Code#NOT_OWNER}: a release named a token that is not the lock's current grant.
 *   <li>{@link Code#KEY_FENCED}: an unfenced put or delete (token 0) of a key whose last write was
 *       fenced; the message names the lock that fences it.
 * </ul>
 *
 * <p>A store whose callers must act differently on some refusals throws a subtype (the JDBC
 * fence's unverified token).
 */
public class StaleTokenException extends TenureException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long token;
    private final long currentToken;

    /** A write to {@code resource} refused because {@code currentToken} is its lock's grant now. */
    StaleTokenException(String resource, long token, long currentToken) {
        this(
                Code.STALE_TOKEN,
                "write to '" + resource + "' with token " + token + " rejected: the lock's current token is "
                        + currentToken,
                resource,
                token,
                currentToken,
                null);
    }

    /** For stores that explain a refusal in their own words, or wrap the store's own error. */
    public StaleTokenException(
            String message, String resource, long token, long currentToken, @Nullable Throwable cause) {
        this(Code.STALE_TOKEN, message, resource, token, currentToken, cause);
    }

    private StaleTokenException(
            Code code, String message, String resource, long token, long currentToken, @Nullable Throwable cause) {
        super(code, message, cause);
        this.resource = resource;
        this.token = token;
        this.currentToken = currentToken;
    }

    /** A release of {@code lock} with {@code releasedToken} refused: {@code currentToken} owns it (0: free). */
    static StaleTokenException notOwner(String lock, long releasedToken, long currentToken) {
        return new StaleTokenException(
                Code.NOT_OWNER,
                "token " + releasedToken + " does not own lock '" + lock + "' (current token " + currentToken + ")",
                lock,
                releasedToken,
                currentToken,
                null);
    }

    /** An unfenced write of {@code key} refused: its last write was fenced; the server's message names the lock. */
    static StaleTokenException keyFenced(String key, String serverMessage) {
        return new StaleTokenException(
                Code.KEY_FENCED,
                serverMessage.isEmpty()
                        ? "key '" + key + "' was last written fenced: an unfenced write is refused"
                        : serverMessage,
                key,
                0,
                0,
                null);
    }

    /** What the write was to: the key (Tenure's KV), "checkpoint of LOCK", the released lock, the store's resource. */
    public String resource() {
        return resource;
    }

    /** The refused token (0 for an unfenced write). */
    public long token() {
        return token;
    }

    /**
     * The token the refused one lost to: the lock's current grant for Tenure's KV, checkpoints and
     * releases (0 while the lock is free), the highest token accepted for the resource for a store
     * that keeps a high-water mark (the JDBC fence; 0 if none yet). 0 for {@link Code#KEY_FENCED}:
     * the server names the fencing lock, not its token.
     */
    public long currentToken() {
        return currentToken;
    }
}
