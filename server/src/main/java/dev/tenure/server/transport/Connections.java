package dev.tenure.server.transport;

import dev.tenure.server.admin.NodeMetrics;
import dev.tenure.server.config.ConnectionLimits;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelConfig;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client connections of a node's gRPC port: at most {@code connectionsMax} open, at most
 * {@code connectionsPerAddressMax} of them from one IP address, and what the answers their
 * clients have not read cost the node.
 *
 * <p>A connection past the limit is closed where it is accepted, by a handler on the listening
 * socket's own pipeline ({@link #acceptor()}), ahead of the hand-off to a serving loop: it never
 * gets a TLS engine, an HTTP/2 codec or a gRPC transport, and costs the accept loop one accept
 * and one close. A gRPC {@code ServerTransportFilter} could count transports too, but hears of one
 * only once its TLS and HTTP/2 handshakes are done, and cannot close it. Connections already open
 * are served on other threads, so a flood of refused ones delays none of them.
 */
public final class Connections implements NodeMetrics.ConnectionFigures {
    private static final Logger LOG = LoggerFactory.getLogger(Connections.class);

    private final ConnectionLimits limits;
    private final boolean tlsOnly;
    // Two throttles: a flood of refused connections must not silence the line that says an
    // established one was cut, nor the other way round.
    private final ThrottledLog refusals = new ThrottledLog(LOG);
    private final ThrottledLog cuts = new ThrottledLog(LOG);
    /** Incremented on the accept loop only; decremented on the loop that closes each connection. */
    private final AtomicInteger open = new AtomicInteger();

    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong cutOff = new AtomicLong();
    private final AtomicLong nodeUnsent = new AtomicLong();
    private final Map<SocketAddress, Connection> byRemote = new ConcurrentHashMap<>();
    /**
     * Open connections per client IP address: raised on the accept loop only, lowered on the
     * loop that closes each; an address with none is not kept.
     */
    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    private final Acceptor acceptor = new Acceptor();
    private volatile Consumer<OutOfMemoryError> outOfMemory = error -> {};

    /** @param tlsOnly the port serves TLS only: a plaintext gRPC client is told so (PlaintextOnTlsPort) */
    public Connections(ConnectionLimits limits, boolean tlsOnly) {
        this.limits = limits;
        this.tlsOnly = tlsOnly;
    }

    /**
     * From now on every connection allocates its buffers through an {@link OutOfMemoryAllocator}
     * that hands {@code hook} each allocation that failed for want of memory.
     */
    public void outOfMemory(Consumer<OutOfMemoryError> hook) {
        this.outOfMemory = hook;
    }

    /** The handler for the listening socket's pipeline, ahead of the server's acceptor. */
    public ChannelHandler acceptor() {
        return acceptor;
    }

    ConnectionLimits limits() {
        return limits;
    }

    /** The open connection whose client is at {@code remote}, or null (not over this port, or closed). */
    @Nullable
    Connection find(@Nullable SocketAddress remote) {
        return remote == null ? null : byRemote.get(remote);
    }

    /** Adds {@code bytes} (negative: sent at last) to what every client has not read; the new total. */
    long unsent(long bytes) {
        return nodeUnsent.addAndGet(bytes);
    }

    /** {@code connection}'s client does not read its answers: counted, logged, and closed (see SlowReaders). */
    void cutOff(Connection connection, String why) {
        cutOff.incrementAndGet();
        cuts.log(() -> "tenure: closing the connection from " + connection.remote + ": " + why);
    }

    @Override
    public int open() {
        return open.get();
    }

    @Override
    public long refused() {
        return refused.get();
    }

    @Override
    public long cutOff() {
        return cutOff.get();
    }

    @Override
    public long unsentBytes() {
        return nodeUnsent.get();
    }

    @ChannelHandler.Sharable
    private final class Acceptor extends ChannelInboundHandlerAdapter {
        /** Runs on the accept loop, once per accepted connection, before the server bootstrap's acceptor. */
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Channel child = (Channel) msg;
            SocketAddress remote = child.remoteAddress();
            if (open.get() >= limits.connectionsMax()) {
                refuse(
                        child,
                        remote,
                        () -> open.get() + " connections are open, the most this node takes"
                                + " (connectionsMax, --connections-max)");
                return;
            }
            InetAddress address = remote instanceof InetSocketAddress ip ? ip.getAddress() : null;
            if (address != null) {
                // Only this loop raises the count, so it is at most what was just read.
                int fromAddress = perAddress.getOrDefault(address, 0);
                if (fromAddress >= limits.connectionsPerAddressMax()) {
                    refuse(
                            child,
                            remote,
                            () -> fromAddress + " connections from " + address.getHostAddress()
                                    + " are open, the most this node takes from one address (connectionsPerAddressMax,"
                                    + " --connections-per-address-max)");
                    return;
                }
                perAddress.merge(address, 1, Integer::sum);
            }
            open.incrementAndGet();
            Connection connection = new Connection(remote, outOfMemory);
            byRemote.put(remote, connection);
            // addListener returns the close future itself, for chaining.
            var unused = child.closeFuture().addListener(closed -> {
                byRemote.remove(remote, connection);
                if (address != null) {
                    perAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
                }
                open.decrementAndGet();
            });
            if (tlsOnly) {
                child.pipeline().addFirst(new PlaintextOnTlsPort());
            }
            // First in the connection's pipeline, so that it can close the socket itself.
            child.pipeline().addFirst(connection);
            ctx.fireChannelRead(child);
        }

        /**
         * Closed with a reset, not a FIN: the client learns at once that it was refused, and the
         * node keeps no TIME_WAIT entry for a connection it never served.
         */
        private void refuse(Channel child, SocketAddress remote, Supplier<String> why) {
            long count = refused.incrementAndGet();
            try {
                child.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (RuntimeException resetNotAvailable) {
                // a plain close then
            }
            // Not registered with a loop yet, so closed here at once, as Netty's own acceptor
            // closes a child it cannot register.
            child.unsafe().closeForcibly();
            refusals.log(() -> "tenure: refused a connection from " + remote + ": " + why.get() + "; " + count
                    + " refused since the node started");
        }
    }

    /**
     * One open connection, first in its channel's pipeline: how many bytes of answers its calls
     * have left waiting for its client, and a way to close its socket at once. It handles no event
     * (Netty passes it by), so it costs the connection's traffic nothing.
     */
    static final class Connection extends ChannelHandlerAdapter {
        final SocketAddress remote;
        final AtomicLong unsent = new AtomicLong();
        /** Bytes of requests its calls hold or have room for (see RequestBudget); guarded by the RequestBudget. */
        long requestBytes;

        private final Consumer<OutOfMemoryError> outOfMemory;
        private volatile @Nullable ChannelHandlerContext ctx; // null until the connection is served

        Connection(SocketAddress remote, Consumer<OutOfMemoryError> outOfMemory) {
            this.remote = remote;
            this.outOfMemory = outOfMemory;
        }

        /**
         * Called once the connection is registered with its loop, after the server set its options:
         * so it wraps gRPC's allocator (which gRPC does not let others name), before any byte is read.
         */
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            ChannelConfig config = ctx.channel().config();
            if (!(config.getAllocator() instanceof OutOfMemoryAllocator)) {
                config.setAllocator(new OutOfMemoryAllocator(config.getAllocator(), outOfMemory));
            }
        }

        /**
         * Closes the socket after {@code delayMs} unless {@code settled} by then. Closed from here,
         * next to the socket: gRPC's own close is a GOAWAY that waits for the calls in flight to end,
         * and a call whose client does not read never ends. Its calls then end as on any broken
         * connection, and what was queued for them is let go.
         */
        void closeAfter(long delayMs, BooleanSupplier settled) {
            ChannelHandlerContext c = ctx;
            if (c == null) {
                return; // not served yet: nothing can be queued for it
            }
            // Nothing waits on the close: the socket's own close future reports it to its listeners.
            var unused = c.executor()
                    .schedule(
                            () -> {
                                if (!settled.getAsBoolean()) {
                                    var unusedClose = c.close();
                                }
                            },
                            delayMs,
                            TimeUnit.MILLISECONDS);
        }
    }
}
