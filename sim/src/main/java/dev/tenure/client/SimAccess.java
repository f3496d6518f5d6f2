package dev.tenure.client;

import io.grpc.ManagedChannel;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The package-private client entry points the simulation (module {@code sim}) needs, and
 * nothing else: it lives in this package in that module, so the client's public API stays as it
 * is. The simulation runs every client on one thread, so it may never block: it needs the async
 * forms of release and close, and a channel factory to put the simulated network under the client.
 */
public final class SimAccess {
    private SimAccess() {}

    /**
     * {@code builder} with every endpoint's channel made by {@code channels}, and every call made
     * as a unary call: the simulated network models those call by call.
     */
    public static TenureClient build(TenureClient.Builder builder, Function<String, ManagedChannel> channels) {
        return builder.channelFactory(channels).unaryCalls().build();
    }

    /** {@link Lease#release()} without waiting. */
    public static CompletableFuture<Void> releaseAsync(Lease lease) {
        return lease.releaseAsync();
    }

    /** {@link Session#close()} without waiting: the session becomes LOST(RELEASED) later. */
    public static void beginClose(Session session) {
        session.beginClose();
    }
}
