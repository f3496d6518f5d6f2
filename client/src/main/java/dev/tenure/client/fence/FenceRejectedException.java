package dev.tenure.client.fence;

import dev.tenure.client.TenureException;

/**
 * A {@link FencedStore} refused a write: its token lost to a newer one, and nothing of the write
 * was applied. The writer is no longer the holder as far as storage is concerned: stop, do not
 * retry with the same token.
 */
public class FenceRejectedException extends TenureException {
    private final String resource;
    private final long token;
    private final long highestAccepted;

    public FenceRejectedException(String resource, long token, long highestAccepted) {
        this(
                "write to '" + resource + "' with token " + token + " rejected: token " + highestAccepted + " is newer",
                resource,
                token,
                highestAccepted,
                null);
    }

    /** For stores that explain a refusal in their own words, or wrap the store's own error. */
    protected FenceRejectedException(
            String message, String resource, long token, long highestAccepted, Throwable cause) {
        super(message, cause);
        this.resource = resource;
        this.token = token;
        this.highestAccepted = highestAccepted;
    }

    public String resource() {
        return resource;
    }

    /** The refused token. */
    public long token() {
        return token;
    }

    /**
     * The token the refused one lost to: the highest token accepted for the resource (JDBC fence),
     * or, for a store that accepts only the lock's current grant (Tenure's KV), that grant's token
     * (0 while the lock is free). 0 if no token was accepted yet.
     */
    public long highestAccepted() {
        return highestAccepted;
    }
}
