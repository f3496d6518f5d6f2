package dev.tenure.api;

/** Limits of the streaming rpcs that a node and the Java client both count on. */
public final class StreamLimits {
    /**
     * The default of a node's {@code callsInFlightMax}: calls one Calls stream may carry at once.
     * The Java client sends no more than this on one stream (fewer once a node names a lower
     * limit), and any more as unary calls.
     */
    public static final int CALLS_IN_FLIGHT_MAX = 10_000;

    private StreamLimits() {}
}
