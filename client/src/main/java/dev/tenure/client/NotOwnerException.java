package dev.tenure.client;

/** A release named a token that is not the lock's current grant; nothing changed. */
public class NotOwnerException extends TenureException {
    private final String lock;
    private final long currentToken;

    NotOwnerException(String lock, long releasedToken, long currentToken) {
        super("token " + releasedToken + " does not own lock '" + lock + "' (current token " + currentToken + ")");
        this.lock = lock;
        this.currentToken = currentToken;
    }

    public String lock() {
        return lock;
    }

    /** The lock's current token, 0 if the lock is free. */
    public long currentToken() {
        return currentToken;
    }
}
