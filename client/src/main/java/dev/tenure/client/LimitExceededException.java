package dev.tenure.client;

/** A limit that depends on server state was reached (leases per session, waiters, keys, ...). */
public class LimitExceededException extends TenureException {
    public LimitExceededException(String message) {
        super(message);
    }
}
