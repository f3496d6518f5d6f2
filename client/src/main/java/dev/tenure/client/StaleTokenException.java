package dev.tenure.client;

/**
 * A write was refused because its fencing token lost to a newer one, and nothing of it was
 * applied: Tenure's KV or a checkpoint (the token is not the lock's current grant) or any
 * {@link dev.tenure.client.fence.FencedStore} (a higher token was accepted for the resource). The
 * writer is no longer the holder as far as storage is concerned: stop, do not retry with the same
 * token. The one exception for a refused stale token; a store whose callers must act differently
 * on some refusals throws a subtype (the JDBC fence's unverified token).
 */
public class StaleTokenException extends TenureException {
    private final String resource;
    private final long token;
    private final long currentToken;

    /** A write to {@code resource} refused because {@code currentToken} is its lock's grant now. */
    StaleTokenException(String resource, long token, long currentToken) {
        this(
                "write to '" + resource + "' with token " + token + " rejected: the lock's current token is "
                        + currentToken,
                resource,
                token,
                currentToken,
                null);
    }

    /** For stores that explain a refusal in their own words, or wrap the store's own error. */
    public StaleTokenException(String message, String resource, long token, long currentToken, Throwable cause) {
        super(message, cause);
        this.resource = resource;
        this.token = token;
        this.currentToken = currentToken;
    }

    /** What the write was to: the key (Tenure's KV), "checkpoint of LOCK", the store's resource. */
    public String resource() {
        return resource;
    }

    /** The refused token (0 for an unfenced write). */
    public long token() {
        return token;
    }

    /**
     * The token the refused one lost to: the lock's current grant for Tenure's KV and checkpoints
     * (0 while the lock is free), the highest token accepted for the resource for a store that
     * keeps a high-water mark (the JDBC fence; 0 if none yet).
     */
    public long currentToken() {
        return currentToken;
    }
}
