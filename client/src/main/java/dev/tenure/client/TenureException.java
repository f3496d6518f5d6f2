package dev.tenure.client;

import org.jspecify.annotations.Nullable;

/**
 * Every exception the Tenure client throws; unchecked. {@link #code()} says what went wrong and the
 * message names the cause. Two subtypes are for callers that act differently on them: {@link
 * StaleTokenException} (a stale token refused: stop acting as the holder) and {@link
 * UnavailableException} (no answer: retry, or fail closed).
 */
public class TenureException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    public enum Code {
        /**
         * A node refused this client, and nothing changed: its credential was not accepted (a TLS
         * handshake that failed, or {@code UNAUTHENTICATED}), its principal may not do what it asked
         * ({@code PERMISSION_DENIED}), or the request named a session of another client without that
         * session's secret. Never retried: the same request would be refused again. The message
         * says why in one line, e.g. "TLS handshake with 10.0.0.7:7420 failed: wrong host: ...".
         */
        DENIED,
        /** The request was rejected as malformed or out of bounds; retrying it cannot help. */
        INVALID_REQUEST,
        /** A limit that depends on server state was reached (leases per session, waiters, keys, ...). */
        LIMIT_EXCEEDED,
        /**
         * The lock was not granted: it is held and the request did not wait, or its wait ran out.
         * The message names the holder's token, or, when nobody holds it but it is in its lock
         * delay, until when.
         */
        LOCK_HELD,
        /**
         * The lease is still valid but has less time left than the caller asked for, even after a
         * renewal: the mutation should not start.
         */
        LEASE_EXPIRING,
        /** The lease is no longer valid: stop acting on it. The message says why (a lost lease's end). */
        LEASE_LOST,
        /** The session has ended (horizon passed, closed, or ended by the server); open a new one. */
        SESSION_LOST,
        /** A write or a release refused for its token: always a {@link StaleTokenException}. */
        STALE_TOKEN,
        /**
         * A release named a token that is not the lock's current grant; nothing changed. Always a
         * {@link StaleTokenException}, whose {@code currentToken()} is the lock's grant (0 if free).
         */
        NOT_OWNER,
        /**
         * An unfenced put or delete of a key whose last write was fenced; nothing was written.
         * Always a {@link StaleTokenException}; the message names the lock that fences the key.
         * Write it with that lock's current token, or, to write it unfenced on purpose, use {@link
         * Kv#putOverridingFence(String, byte[])} or {@link Kv#deleteOverridingFence(String)}.
         */
        KEY_FENCED,
        /**
         * A conditional KV write named another version than the key's; nothing changed. Always a
         * {@link VersionMismatchException}, which carries the current version.
         */
        VERSION_MISMATCH,
        /**
         * A put of a key that another live session holds as ephemeral; nothing changed. The key is
         * deleted when that session ends.
         */
        EPHEMERAL_CONFLICT,
        /** No endpoint answered within the request timeout: always an {@link UnavailableException}. */
        UNAVAILABLE,
        /**
         * A watch's revision is older than what the node keeps (or the watch fell that far
         * behind): changes after it may be gone. Watch again without a revision (current state).
         */
        REVISION_COMPACTED,
        /**
         * Anything else: interrupted, cancelled, an outcome no longer known (request id too old), a
         * status the client does not expect. The message says which.
         */
        OTHER
    }

    private final Code code;

    public TenureException(Code code, String message) {
        this(code, message, null);
    }

    public TenureException(Code code, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** What went wrong; the message names the cause. */
    public Code code() {
        return code;
    }
}
