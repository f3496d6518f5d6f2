package dev.tenure.client;

import dev.tenure.client.internal.TenureEnd;
import java.util.Optional;

/**
 * Why a lease or a session was lost, for good; and how a past tenure of a lock ended ({@link
 * Lease#previousEnd()}, {@link LockStatus.PastTenure#end()}: RELEASED, EXPIRED, DISCONNECTED or
 * REVOKED, the ends the server records). A connection in doubt is not a loss: see {@link
 * Lease#invalidated()}.
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

    /** The previous tenure's end as the grant says it; empty for none (the lock's first tenure). */
    static Optional<LossReason> ofPrevious(TenureEnd end) {
        return end == TenureEnd.NONE ? Optional.empty() : Optional.of(of(end));
    }

    static LossReason of(TenureEnd end) {
        return switch (end) {
            case RELEASED -> RELEASED;
            case EXPIRED -> EXPIRED;
            case DISCONNECTED -> DISCONNECTED;
            case REVOKED -> REVOKED;
            default -> SESSION_ENDED;
        };
    }
}
