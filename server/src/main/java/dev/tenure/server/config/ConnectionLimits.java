package dev.tenure.server.config;

import dev.tenure.api.StreamLimits;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * What one node gives its clients' connections: how many, for how long while they do nothing, how
 * many calls each, and how much of the node's memory the answers that a client does not read may
 * hold. Every bound is named; past it the node refuses or closes, and says which bound it was.
 *
 * @param connectionsMax client connections open at once; one more is closed at accept, before it
 *     costs the node more than its socket
 * @param connectionsPerAddressMax client connections from one IP address open at once; one more
 *     from that address is closed at accept, as past connectionsMax. By default as many as
 *     connectionsMax: clients behind one load balancer or NAT share an address
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
 * @param requestBytesMax bytes of requests one connection's calls may hold in the node at once:
 *     each message a call asks for counts messageBytesMax until it arrives, then its own size
 *     until its answer. Past it a unary call is refused RESOURCE_EXHAUSTED before its request is
 *     read, and a Calls stream reads its next call once there is room; session streams may go one
 *     such limit past it, so that no other call holds back their keepalives
 * @param nodeRequestBytesMax the same over all connections, session streams aside
 * @param logBytesPerSecondMax bytes of commands one client (its principal, or its address
 *     without a certificate) may add to the log per second, a second's worth at once; past it its
 *     commands are refused RESOURCE_EXHAUSTED before the log. Counted: KV writes and deletes,
 *     checkpoints, releases, renewals and status reads; not keepalives, session opens or acquires
 */
public record ConnectionLimits(
        int connectionsMax,
        int connectionsPerAddressMax,
        Duration handshakeTimeout,
        Duration idleTimeout,
        int callsPerConnectionMax,
        int callsInFlightMax,
        long unsentBytesMax,
        long nodeUnsentBytesMax,
        long requestBytesMax,
        long nodeRequestBytesMax,
        long logBytesPerSecondMax) {

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

    /**
     * Room for about 60 requests of the largest size (64 KiB values) on one connection at once: a
     * client that writes faster than the log commits waits on its own connection's flow control.
     */
    public static final long REQUEST_BYTES_MAX = 4L << 20;

    /**
     * All connections together: what the memory budget counts for requests in flight (about 240
     * of the largest size; docs/memory.md, 'calls').
     */
    public static final long NODE_REQUEST_BYTES_MAX = 16L << 20;

    /**
     * 64 MiB/s: a thousand 64 KiB puts a second from one client, and more than ten times what
     * `tenure bench parallel`'s 32 clients write together (docs/memory.md, 'Refused writes and the
     * log'), so no workload meets it; it bounds how fast one client can fill the disk.
     */
    public static final long LOG_BYTES_PER_SECOND_MAX = 64L << 20;

    /** All connections together: an eighth of the heap (64 MiB of `bin/tenure`'s 512 MiB). */
    public static long nodeUnsentBytesMaxDefault() {
        return Runtime.getRuntime().maxMemory() / 8;
    }

    public ConnectionLimits {
        requirePositive("connectionsMax", connectionsMax);
        requirePositive("connectionsPerAddressMax", connectionsPerAddressMax);
        requirePositive("callsPerConnectionMax", callsPerConnectionMax);
        requirePositive("callsInFlightMax", callsInFlightMax);
        requirePositive("unsentBytesMax", unsentBytesMax);
        requirePositive("nodeUnsentBytesMax", nodeUnsentBytesMax);
        requirePositive("requestBytesMax", requestBytesMax);
        requirePositive("nodeRequestBytesMax", nodeRequestBytesMax);
        requirePositive("logBytesPerSecondMax", logBytesPerSecondMax);
        requirePositive("handshakeTimeout", handshakeTimeout.toMillis());
        requirePositive("idleTimeout", idleTimeout.toMillis());
    }

    public static ConnectionLimits defaults() {
        return new ConnectionLimits(
                CONNECTIONS_MAX,
                CONNECTIONS_MAX,
                HANDSHAKE_TIMEOUT,
                IDLE_TIMEOUT,
                CALLS_PER_CONNECTION_MAX,
                StreamLimits.CALLS_IN_FLIGHT_MAX,
                UNSENT_BYTES_MAX,
                nodeUnsentBytesMaxDefault(),
                REQUEST_BYTES_MAX,
                NODE_REQUEST_BYTES_MAX,
                LOG_BYTES_PER_SECOND_MAX);
    }

    /** These limits with {@code max} connections in all, and from one address no more than that. */
    public ConnectionLimits withConnectionsMax(int max) {
        return with(c -> {
            c.connectionsMax = max;
            c.connectionsPerAddressMax = Math.min(c.connectionsPerAddressMax, max);
        });
    }

    public ConnectionLimits withConnectionsPerAddressMax(int max) {
        return with(c -> c.connectionsPerAddressMax = max);
    }

    public ConnectionLimits withHandshakeTimeout(Duration timeout) {
        return with(c -> c.handshakeTimeout = timeout);
    }

    public ConnectionLimits withIdleTimeout(Duration timeout) {
        return with(c -> c.idleTimeout = timeout);
    }

    public ConnectionLimits withCallsPerConnectionMax(int max) {
        return with(c -> c.callsPerConnectionMax = max);
    }

    public ConnectionLimits withCallsInFlightMax(int max) {
        return with(c -> c.callsInFlightMax = max);
    }

    public ConnectionLimits withUnsentBytesMax(long perConnection, long node) {
        return with(c -> {
            c.unsentBytesMax = perConnection;
            c.nodeUnsentBytesMax = node;
        });
    }

    public ConnectionLimits withRequestBytesMax(long perConnection, long node) {
        return with(c -> {
            c.requestBytesMax = perConnection;
            c.nodeRequestBytesMax = node;
        });
    }

    public ConnectionLimits withLogBytesPerSecondMax(long max) {
        return with(c -> c.logBytesPerSecondMax = max);
    }

    /** A copy with what {@code change} sets, checked as the constructor checks. */
    public ConnectionLimits with(Consumer<Changes> change) {
        Changes c = new Changes(this);
        change.accept(c);
        return c.build();
    }

    /** The components of {@link ConnectionLimits}, as {@link #with} lets a change set them. */
    public static final class Changes {
        public int connectionsMax;
        public int connectionsPerAddressMax;
        public Duration handshakeTimeout;
        public Duration idleTimeout;
        public int callsPerConnectionMax;
        public int callsInFlightMax;
        public long unsentBytesMax;
        public long nodeUnsentBytesMax;
        public long requestBytesMax;
        public long nodeRequestBytesMax;
        public long logBytesPerSecondMax;

        private Changes(ConnectionLimits l) {
            connectionsMax = l.connectionsMax;
            connectionsPerAddressMax = l.connectionsPerAddressMax;
            handshakeTimeout = l.handshakeTimeout;
            idleTimeout = l.idleTimeout;
            callsPerConnectionMax = l.callsPerConnectionMax;
            callsInFlightMax = l.callsInFlightMax;
            unsentBytesMax = l.unsentBytesMax;
            nodeUnsentBytesMax = l.nodeUnsentBytesMax;
            requestBytesMax = l.requestBytesMax;
            nodeRequestBytesMax = l.nodeRequestBytesMax;
            logBytesPerSecondMax = l.logBytesPerSecondMax;
        }

        private ConnectionLimits build() {
            return new ConnectionLimits(
                    connectionsMax,
                    connectionsPerAddressMax,
                    handshakeTimeout,
                    idleTimeout,
                    callsPerConnectionMax,
                    callsInFlightMax,
                    unsentBytesMax,
                    nodeUnsentBytesMax,
                    requestBytesMax,
                    nodeRequestBytesMax,
                    logBytesPerSecondMax);
        }
    }

    private static void requirePositive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }
}
