package dev.tenure.client;

import org.jspecify.annotations.Nullable;

/**
 * No endpoint answered within the request timeout (no server or no quorum); {@link #code()} is
 * {@link Code#UNAVAILABLE}. The outcome of a mutating request is unknown; retrying it from the
 * same session is safe only as a new request.
 */
public class UnavailableException extends TenureException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(String message, @Nullable Throwable cause) {
        super(Code.UNAVAILABLE, message, cause);
    }
}
