package dev.tenure.client;

/** The lock was not granted: it is held and the request did not wait, or its wait ran out. */
public class LockHeldException extends TenureException {
    private final String lock;
    private final long holderToken;

    public LockHeldException(String lock, long holderToken) {
        super("lock '" + lock + "' is held (holder token " + holderToken + ")");
        this.lock = lock;
        this.holderToken = holderToken;
    }

    public String lock() {
        return lock;
    }

    /** The token of the lease that holds the lock. */
    public long holderToken() {
        return holderToken;
    }
}
