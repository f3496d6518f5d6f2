package dev.tenure.server;

import dev.tenure.api.StreamLimits;
import java.time.Duration;

/**
 * What one node gives its clients' connections: how many, for how long while they do nothing, how
 * many calls each, and how much of the node's memory the answers that a client does not read may
 * hold. Every bound is named; past it the node refuses or closes, and says which bound it was.
 *
 * @param connectionsMax client connections open at once; one more is closed at accept, before it
 *     costs the node more than its socket
 * @param handshakeTimeout how long a new connection has to finish its TLS handshake and send
 *     HTTP/2's preface; then it is closed
 * @param idleTimeout how long a connection may carry no call at all; then it is sent a GOAWAY and
 *     closed. A session's stream and the Java client's Calls stream are calls: a client with a
 *     session is never idle
 * @param callsPerConnectionMax calls (HTTP/2 streams) open at once on one connection, as HTTP/2's
 *     SETTINGS_MAX_CONCURRENT_STREAMS: gRPC clients queue calls past it until one ends
 * @param callsInFlightMax calls one Calls stream may carry at once; one more is refused
 *     RESOURCE_EXHAUSTED
 * @param unsentBytesMax bytes of answers one connection may have waiting for its client to read
 *     (beyond gRPC's 32 KiB per call); past it the connection is closed
 * @param nodeUnsentBytesMax the same over all connections; past it the connection whose answer
 *     went past it is closed
 */
public record ConnectionLimits(
        int connectionsMax,
        Duration handshakeTimeout,
        Duration idleTimeout,
        int callsPerConnectionMax,
        int callsInFlightMax,
        long unsentBytesMax,
        long nodeUnsentBytesMax) {

    /**
     * 4,096 connections: held idle, they take about 30 MiB of a node's heap and as many file
     * descriptors, within `bin/tenure`'s 512 MiB heap and the usual hard limit of open files
     * (BENCHMARKS.md, 'Connection floods and clients that do not read').
     */
    public static final int CONNECTIONS_MAX = 4_096;

    /** A client on a slow network finishes a TLS handshake in well under a second. */
    public static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    /**
     * A minute: the Java client keeps a call open as long as it has a session or has made a call,
     * so only a connection that does nothing at all is closed, and a client that comes back opens
     * a new one without noticing.
     */
    public static final Duration IDLE_TIMEOUT = Duration.ofMinutes(1);

    /**
     * The Java client uses two calls per connection (its sessions' stream and its Calls stream);
     * with {@code unaryCalls(true)} one per call in flight, a waiting acquire included.
     */
    public static final int CALLS_PER_CONNECTION_MAX = 1_000;

    /** Enough for the answers a client that has a few hundred 64 KiB reads in flight is owed. */
    public static final long UNSENT_BYTES_MAX = 16L << 20;

    /** All connections together: an eighth of the heap (64 MiB of `bin/tenure`'s 512 MiB). */
    public static long nodeUnsentBytesMaxDefault() {
        return Runtime.getRuntime().maxMemory() / 8;
    }

    public ConnectionLimits {
        requirePositive("connectionsMax", connectionsMax);
        requirePositive("callsPerConnectionMax", callsPerConnectionMax);
        requirePositive("callsInFlightMax", callsInFlightMax);
        requirePositive("unsentBytesMax", unsentBytesMax);
        requirePositive("nodeUnsentBytesMax", nodeUnsentBytesMax);
        requirePositive("handshakeTimeout", handshakeTimeout.toMillis());
        requirePositive("idleTimeout", idleTimeout.toMillis());
    }

    public static ConnectionLimits defaults() {
        return new ConnectionLimits(
                CONNECTIONS_MAX,
                HANDSHAKE_TIMEOUT,
                IDLE_TIMEOUT,
                CALLS_PER_CONNECTION_MAX,
                StreamLimits.CALLS_IN_FLIGHT_MAX,
                UNSENT_BYTES_MAX,
                nodeUnsentBytesMaxDefault());
    }

    public ConnectionLimits withConnectionsMax(int max) {
        return new ConnectionLimits(
                max,
                handshakeTimeout,
                idleTimeout,
                callsPerConnectionMax,
                callsInFlightMax,
                unsentBytesMax,
                nodeUnsentBytesMax);
    }

    public ConnectionLimits withHandshakeTimeout(Duration timeout) {
        return new ConnectionLimits(
                connectionsMax,
                timeout,
                idleTimeout,
                callsPerConnectionMax,
                callsInFlightMax,
                unsentBytesMax,
                nodeUnsentBytesMax);
    }

    public ConnectionLimits withIdleTimeout(Duration timeout) {
        return new ConnectionLimits(
                connectionsMax,
                handshakeTimeout,
                timeout,
                callsPerConnectionMax,
                callsInFlightMax,
                unsentBytesMax,
                nodeUnsentBytesMax);
    }

    public ConnectionLimits withCallsPerConnectionMax(int max) {
        return new ConnectionLimits(
                connectionsMax,
                handshakeTimeout,
                idleTimeout,
                max,
                callsInFlightMax,
                unsentBytesMax,
                nodeUnsentBytesMax);
    }

    public ConnectionLimits withCallsInFlightMax(int max) {
        return new ConnectionLimits(
                connectionsMax,
                handshakeTimeout,
                idleTimeout,
                callsPerConnectionMax,
                max,
                unsentBytesMax,
                nodeUnsentBytesMax);
    }

    public ConnectionLimits withUnsentBytesMax(long perConnection, long node) {
        return new ConnectionLimits(
                connectionsMax,
                handshakeTimeout,
                idleTimeout,
                callsPerConnectionMax,
                callsInFlightMax,
                perConnection,
                node);
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
