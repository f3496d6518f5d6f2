package dev.tenure.core;

/** What the state machine decided about a request that it did not carry out. */
public enum Code {
    OK,
    /** The lock is held by another session and the request did not wait, or its wait timed out. */
    HELD,
    /** A release whose token is not the lock's current grant. */
    NOT_OWNER,
    /** A fenced write whose token is not the lock's current grant. */
    STALE_TOKEN,
    /** The session is unknown or has ended. */
    SESSION_LOST,
    /** The key or lock does not exist. */
    NOT_FOUND,
    /** A limit that depends on state was reached; the message names it. */
    LIMIT,
    /** The request id is older than the session's retry window. */
    REQUEST_TOO_OLD,
    /** Input the gateway should have refused. */
    INVALID,
    /** A wait was cancelled by its client. */
    CANCELLED,
    /**
     * An unfenced write to a key whose last write was fenced, without the explicit override; the
     * message names the lock that fences the key.
     */
    KEY_FENCED,
    /**
     * The request names a session it did not show the secret of: the session belongs to another
     * client. Nothing changed.
     */
    DENIED,
    /**
     * A conditional KV write whose expected version is not the key's (0: the key does not exist).
     * Nothing changed; the refusal carries the current version.
     */
    VERSION_MISMATCH,
    /**
     * A put over an ephemeral key that another live session holds: the key lives and dies with that
     * session, so nobody else may take it over while it lives. Nothing changed.
     */
    EPHEMERAL_CONFLICT
}
