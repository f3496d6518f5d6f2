package dev.tenure.client.internal;

import dev.tenure.client.Lease;
import dev.tenure.client.TenureClient;
import dev.tenure.client.spi.TimeSource;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The way from {@code dev.tenure.client.spi} into the API package's non-public parts: the
 * transport settings stay off the public builder, so that no gRPC or Netty type is in the API,
 * while the simulation and the CLI can still set them; and what tests read of a lease that the
 * API says in other units. {@code TenureClient} registers the bridge
 * when it is initialized.
 */
public final class ClientAccess {
    /** What the API package lends the SPI. */
    public interface Bridge {
        void channelFactory(TenureClient.Builder builder, Function<String, ManagedChannel> factory);

        void unaryCalls(TenureClient.Builder builder, boolean unary);

        void timeSource(TenureClient.Builder builder, TimeSource time);

        /** TLS with {@code context} (its handshake failures said in one line), or plaintext if null. */
        NettyChannelBuilder configure(
                NettyChannelBuilder builder, @Nullable SslContext context, boolean presentsCertificate);

        void tls(TenureClient.Builder builder, SslContext context, boolean presentsCertificate);

        long horizonNanos(Lease lease);
    }

    private static volatile @Nullable Bridge bridge;

    private ClientAccess() {}

    /** Called once, by {@code TenureClient}'s static initializer. */
    public static void register(Bridge b) {
        bridge = b;
    }

    public static Bridge bridge() {
        Bridge b = bridge;
        if (b == null) {
            try { // a nested class (the builder) can be in use before its outer class is initialized
                Class.forName(TenureClient.class.getName(), true, ClientAccess.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            b = bridge;
        }
        if (b == null) {
            throw new IllegalStateException("TenureClient did not register the bridge");
        }
        return b;
    }
}
