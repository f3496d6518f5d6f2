package dev.tenure.client.internal;

import static dev.tenure.api.v1.TenureEnd.TENURE_END_DISCONNECTED_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_NONE_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_RELEASED_VALUE;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_REVOKED_VALUE;

import dev.tenure.api.v1.CheckpointOrBuilder;
import dev.tenure.client.Checkpoint;

/**
 * The client's values of the wire fields whose types share a name with the client's own
 * ({@code TenureEnd}, {@code Checkpoint}), for the places that read or write those messages. The
 * wire's side is taken by enum number and by the message's read-only view, so here, as in the rest
 * of the client, the simple names mean the client's types.
 */
public final class WireValues {
    private WireValues() {}

    /**
     * The end a {@code TenureEnd} field's number ({@code get...EndValue()}) says. A number this
     * client does not know, from a newer server, reads as NONE: it names no end the client could
     * act on.
     */
    public static TenureEnd tenureEnd(int number) {
        return switch (number) {
            case TENURE_END_RELEASED_VALUE -> TenureEnd.RELEASED;
            case TENURE_END_EXPIRED_VALUE -> TenureEnd.EXPIRED;
            case TENURE_END_DISCONNECTED_VALUE -> TenureEnd.DISCONNECTED;
            case TENURE_END_REVOKED_VALUE -> TenureEnd.REVOKED;
            default -> TenureEnd.NONE;
        };
    }

    /** The number a {@code TenureEnd} field is set to ({@code set...EndValue}) to say {@code end}. */
    public static int number(TenureEnd end) {
        return switch (end) {
            case NONE -> TENURE_END_NONE_VALUE;
            case RELEASED -> TENURE_END_RELEASED_VALUE;
            case EXPIRED -> TENURE_END_EXPIRED_VALUE;
            case DISCONNECTED -> TENURE_END_DISCONNECTED_VALUE;
            case REVOKED -> TENURE_END_REVOKED_VALUE;
        };
    }

    public static Checkpoint checkpoint(CheckpointOrBuilder c) {
        return new Checkpoint(
                c.getValue().toByteArray(), c.getToken(), java.time.Instant.ofEpochMilli(c.getWrittenAtMs()));
    }
}
