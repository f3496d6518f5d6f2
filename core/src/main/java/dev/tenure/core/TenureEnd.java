package dev.tenure.core;

/** How a tenure (one lease of one lock) ended. {@link #NONE} means there was no previous tenure. */
public enum TenureEnd {
    NONE,
    /** The holder released it (or closed its session cleanly). */
    RELEASED,
    /**
     * The holder's session passed its deadline without a committed keepalive, or a lease with
     * manual renewal passed its own deadline without a RenewLease.
     */
    EXPIRED,
    /** The holder's connection closed: its process exited or was killed. */
    DISCONNECTED,
    /** An operator or a policy took it away. */
    REVOKED
}
