package dev.tenure.client;

/**
 * A node refused this client, and nothing changed: its credential was not accepted (a TLS
 * handshake that failed, or {@code UNAUTHENTICATED}), its principal may not do what it asked
 * ({@code PERMISSION_DENIED}), or the request named a session of another client without that
 * session's secret ({@code CODE_DENIED}). Never retried: the same request would be refused again.
 * The message says why in one line, e.g. "TLS handshake with 10.0.0.7:7420 failed: wrong host:
 * ...".
 */
public class DeniedException extends TenureException {
    public DeniedException(String message) {
        super(message);
    }

    public DeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
