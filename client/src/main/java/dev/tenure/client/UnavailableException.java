package dev.tenure.client;

/**
 * No endpoint answered within the request timeout (no server or no quorum). The outcome of a
 * mutating request is unknown; retrying it from the same session is safe only as a new request.
 */
public class UnavailableException extends TenureException {
    public UnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
