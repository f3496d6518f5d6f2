package dev.tenure.client;

/**
 * The node refused the request as not permitted: it named a session of another client (its
 * secret was not shown), or the caller was not authenticated or lacks the permission. Nothing
 * changed.
 */
public class DeniedException extends TenureException {
    public DeniedException(String message) {
        super(message);
    }

    public DeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
