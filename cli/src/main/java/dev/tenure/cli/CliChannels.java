package dev.tenure.cli;

import dev.tenure.client.spi.ClientTls;
import dev.tenure.client.spi.Transport;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * The CLI's channels, on one event loop of its own. A JVM exit waits up to 300 ms for threads
 * blocked in native calls, which an event loop idling in its selector is; a command that must be
 * gone before its lease's validity ends stops this loop first (see {@link #stopNow()}), and then
 * exits in tens of milliseconds.
 */
final class CliChannels {
    private static final MultiThreadIoEventLoopGroup LOOP = new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("tenure-cli-io", true), NioIoHandler.newFactory());

    /** Held, so that the level set on it stays: the log manager keeps loggers only weakly. */
    private static final Logger GRPC_LOG = Logger.getLogger("io.grpc");

    private CliChannels() {}

    /**
     * Channels on this loop, with {@code tls} or plaintext (null); no HTTP/2 keepalive pings: see
     * {@code Transport.channelFactory}.
     */
    static Function<String, ManagedChannel> factory(@Nullable ClientTls tls) {
        return target -> {
            NettyChannelBuilder b =
                    NettyChannelBuilder.forTarget(target).eventLoopGroup(LOOP).channelType(NioSocketChannel.class);
            return Transport.configure(b, tls).build();
        };
    }

    /** Ends the event loop at once (its connections with it), waiting for that at most 100 ms. */
    static void stopNow() {
        // Channels still open panic, in their log, at a loop that is gone: expected, and no news.
        GRPC_LOG.setLevel(Level.OFF);
        LOOP.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).awaitUninterruptibly(100, TimeUnit.MILLISECONDS);
    }
}
