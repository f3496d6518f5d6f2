package dev.tenure.client.internal;

import dev.tenure.client.ClientTls;
import dev.tenure.client.Lease;
import dev.tenure.client.TenureClient;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.function.Function;

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

        NettyChannelBuilder configure(NettyChannelBuilder builder, ClientTls tls);

        long horizonNanos(Lease lease);
    }

    private static volatile Bridge bridge;

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
        return b;
    }
}
