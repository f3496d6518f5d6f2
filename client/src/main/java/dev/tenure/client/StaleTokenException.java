package dev.tenure.client;

/** A fenced write carried a token that is not the lock's current grant; nothing was written. */
public class StaleTokenException extends TenureException {
    private final String key;
    private final long currentToken;

    public StaleTokenException(String key, long staleToken, long currentToken) {
        super("write to '" + key + "' with token " + staleToken + " rejected: the lock's current token is "
                + currentToken);
        this.key = key;
        this.currentToken = currentToken;
    }

    public String key() {
        return key;
    }

    /** The lock's current token, 0 if the lock is free. */
    public long currentToken() {
        return currentToken;
    }
}
