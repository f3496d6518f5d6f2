package dev.tenure.client.internal;

/**
 * How a tenure (one lease of one lock) ended, as the wire says it ({@code NONE}: not said). The
 * API says it as a {@code LossReason}.
 */
public enum TenureEnd {
    NONE,
    RELEASED,
    EXPIRED,
    DISCONNECTED,
    REVOKED
}
