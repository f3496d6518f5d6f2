package dev.tenure.client;

/** How a tenure (one lease of one lock) ended. */
public enum TenureEnd {
    NONE,
    RELEASED,
    EXPIRED,
    DISCONNECTED,
    REVOKED;

    static TenureEnd from(dev.tenure.api.v1.TenureEnd end) {
        switch (end) {
            case TENURE_END_RELEASED:
                return RELEASED;
            case TENURE_END_EXPIRED:
                return EXPIRED;
            case TENURE_END_DISCONNECTED:
                return DISCONNECTED;
            case TENURE_END_REVOKED:
                return REVOKED;
            default:
                return NONE;
        }
    }
}
