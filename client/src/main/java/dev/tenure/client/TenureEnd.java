package dev.tenure.client;

/** How a tenure (one lease of one lock) ended. */
public enum TenureEnd {
    NONE,
    RELEASED,
    EXPIRED,
    DISCONNECTED,
    REVOKED
}
