package dev.tenure.client;

/** The lock was not granted: it is held and the request did not wait, or its wait ran out. */
public class LockHeldException extends TenureException {
    private final String lock;
    private final long holderToken;

    LockHeldException(String lock, long holderToken) {
        this(lock, holderToken, "lock '" + lock + "' is held (holder token " + holderToken + ")");
    }

    private LockHeldException(String lock, long holderToken, String message) {
        super(message);
        this.lock = lock;
        this.holderToken = holderToken;
    }

    /**
     * Nobody holds the lock but it is in its lock delay (holder token 0): the server's message
     * says until when.
     */
    static LockHeldException of(String lock, long holderToken, String serverMessage) {
        if (holderToken == 0 && serverMessage != null && serverMessage.contains("lock delay")) {
            return new LockHeldException(lock, 0, serverMessage);
        }
        return new LockHeldException(lock, holderToken);
    }

    public String lock() {
        return lock;
    }

    /** The token of the lease that holds the lock; 0 when the lock is free but in its lock delay. */
    public long holderToken() {
        return holderToken;
    }
}
