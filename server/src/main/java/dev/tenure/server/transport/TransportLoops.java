package dev.tenure.server.transport;

import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.fatal.FatalErrors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.IoHandlerFactory;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.ServerChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.util.NettyRuntime;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The Netty event loops a node's gRPC server runs on: one thread that accepts connections and one
 * per core that serves them, on the transport gRPC picks for itself (epoll where its native
 * library loads, else NIO). They are the node's own, not gRPC's shared defaults, so that their
 * threads can say when they end: without its accept loop a node accepts no connection again, and
 * without a serving loop its connections hang, while the log, and so {@code /health}, stay fine.
 */
public final class TransportLoops implements AutoCloseable {
    private final EventLoopGroup accept;
    private final EventLoopGroup serve;
    private final boolean epoll;

    private TransportLoops(EventLoopGroup accept, EventLoopGroup serve, boolean epoll) {
        this.accept = accept;
        this.serve = serve;
        this.epoll = epoll;
    }

    public static TransportLoops start(FatalErrors fatalErrors) {
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new TransportLoops(
                new MultiThreadIoEventLoopGroup(1, new Watched("tenure-grpc-accept", fatalErrors), io),
                // One per core, as gRPC's default has it.
                new MultiThreadIoEventLoopGroup(
                        NettyRuntime.availableProcessors(), new Watched("tenure-grpc-io", fatalErrors), io),
                epoll);
    }

    /**
     * {@code builder}, served on these loops; {@code acceptor} goes first in the listening socket's
     * pipeline, so it sees each accepted connection before the server bootstrap hands it to a
     * serving loop (the bootstrap adds its own acceptor behind whatever the channel already has).
     */
    public NettyServerBuilder serveOn(NettyServerBuilder builder, ChannelHandler acceptor) {
        return builder.bossEventLoopGroup(accept).workerEventLoopGroup(serve).channelFactory(() -> {
            ServerChannel listening = epoll ? new EpollServerSocketChannel() : new NioServerSocketChannel();
            listening.pipeline().addLast(acceptor);
            return listening;
        });
    }

    /** The loop that accepts connections; for tests that end it. */
    EventLoopGroup acceptLoop() {
        return accept;
    }

    /**
     * Whether the accept loop has ended, or is ending. gRPC's shutdown then waits forever: it
     * closes the listening socket through that loop, which runs nothing any more.
     */
    public boolean acceptEnded() {
        return accept.isShuttingDown();
    }

    /** Call after the gRPC server has terminated: it does not shut down loops it was given. */
    @Override
    public void close() {
        // The loops' ends are reported as each thread ends (see the thread factory below): nothing
        // waits on these futures.
        var unusedAccept = accept.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        var unusedServe = serve.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    /**
     * Netty's thread factory (its FastThreadLocalThreads keep the per-thread buffer caches gRPC's
     * allocator relies on), with each loop's end reported to the node.
     */
    private static final class Watched extends DefaultThreadFactory {
        private final FatalErrors fatalErrors;

        Watched(String name, FatalErrors fatalErrors) {
            super(name, true);
            this.fatalErrors = fatalErrors;
        }

        @Override
        public Thread newThread(Runnable loop) {
            return super.newThread(fatalErrors.watched(FatalCause.GATEWAY_STOPPED, loop));
        }
    }
}
