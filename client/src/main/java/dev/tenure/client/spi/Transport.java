package dev.tenure.client.spi;

import dev.tenure.client.TenureClient;
import dev.tenure.client.internal.ClientAccess;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Internal: the client's transport hooks, for Tenure's own simulation (a simulated network) and
 * CLI (channels on an event loop of its own). Not part of the client's API: the client's module
 * does not export this package, and it may change in any release. An application configures the
 * transport through {@link TenureClient.Builder#tls} only, and its time is the system's.
 */
public final class Transport {
    private Transport() {}

    /**
     * How to make the channel to an endpoint, given its "host:port" as listed in
     * {@link TenureClient.Builder#endpoints(String)}. Default: a plaintext Netty channel, or one
     * with the builder's TLS. The client owns the channels it makes: {@link TenureClient#close()}
     * shuts them down. Leave HTTP/2 keepalive pings off: a server may count them as abuse and
     * close the connection; the sessions' echoes are what detect a silent connection, within a
     * third of the grace, where gRPC allows pings every 10 s at most. Not with the builder's TLS:
     * a factory of its own configures TLS itself ({@link #configure}).
     */
    public static TenureClient.Builder channelFactory(
            TenureClient.Builder builder, Function<String, ManagedChannel> factory) {
        ClientAccess.bridge().channelFactory(builder, factory);
        return builder;
    }

    /**
     * {@code true}: every lock and key-value call (Acquire to KvDelete) is a unary gRPC call of its
     * own. Default {@code false}: they travel as frames of one Calls stream per node, which costs
     * client and node less per call, and each still behaves as a unary call to its caller
     * (deadline, cancellation, status). Unary calls are for what must see each call on its own: a
     * simulated network that loses and duplicates them one by one, an interceptor or a proxy that
     * works per method. Either way a node that does not serve Calls gets unary calls.
     */
    public static TenureClient.Builder unaryCalls(TenureClient.Builder builder, boolean unary) {
        ClientAccess.bridge().unaryCalls(builder, unary);
        return builder;
    }

    /**
     * Makes {@code builder}'s channel speak TLS with {@code tls} (checking that the node's
     * certificate names the host it was given as), or plaintext if {@code tls} is null. Either way
     * a handshake refused for good fails the call UNAUTHENTICATED with the reason in one line,
     * which the client throws as a {@code TenureException} with code {@code DENIED}, instead of
     * being retried.
     */
    public static NettyChannelBuilder configure(NettyChannelBuilder builder, @Nullable ClientTls tls) {
        return tls == null
                ? ClientAccess.bridge().configure(builder, null, false)
                : ClientAccess.bridge().configure(builder, tls.context(), tls.presentsCertificate());
    }

    /**
     * The default channels speak TLS with {@code tls}: as {@link TenureClient.Builder#tls}, with
     * the files already read (a caller that checks them once and builds many clients).
     */
    public static TenureClient.Builder tls(TenureClient.Builder builder, ClientTls tls) {
        ClientAccess.bridge().tls(builder, tls.context(), tls.presentsCertificate());
        return builder;
    }

    /**
     * The client's clock and scheduler (see {@link TimeSource}); default {@link TimeSource#system()}.
     * For the simulation and tests, which move time by hand.
     */
    public static TenureClient.Builder timeSource(TenureClient.Builder builder, TimeSource time) {
        ClientAccess.bridge().timeSource(builder, time);
        return builder;
    }
}
