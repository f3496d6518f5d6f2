package dev.tenure.client;

/**
 * Why a lease or a session was lost, for good. A connection in doubt is not a loss: see
 * {@link Lease#invalidated()}.
 */
public enum LossReason {
    /** Released by this client, or by anyone holding its token. */
    RELEASED,
    /** The client's own conservative horizon passed without a renewal; no server message needed. */
    HORIZON_PASSED,
    /** The server expired it. */
    EXPIRED,
    /** The server saw the session's connection close. */
    DISCONNECTED,
    /** The server revoked it (an operator, maxHold, an ACL reload), or refused to let this client resume it. */
    REVOKED,
    /** The server ended the session without a more specific reason, or no longer knows it. */
    SESSION_ENDED;

    static LossReason of(TenureEnd end) {
        switch (end) {
            case RELEASED:
                return RELEASED;
            case EXPIRED:
                return EXPIRED;
            case DISCONNECTED:
                return DISCONNECTED;
            case REVOKED:
                return REVOKED;
            default:
                return SESSION_ENDED;
        }
    }
}
