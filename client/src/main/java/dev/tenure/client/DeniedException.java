package dev.tenure.client;

/**
 * A node refused this client: its credential was not accepted (a TLS handshake that failed, or
 * {@code UNAUTHENTICATED}), or its principal may not do what it asked ({@code PERMISSION_DENIED}).
 * Never retried: the same certificate would be refused again. The message says why in one line,
 * e.g. "TLS handshake with 10.0.0.7:7420 failed: wrong host: ...".
 */
public class DeniedException extends TenureException {
    public DeniedException(String message, Throwable cause) {
        super(message, cause);
    }
}
