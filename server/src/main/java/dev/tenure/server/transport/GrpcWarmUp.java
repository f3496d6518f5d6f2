package dev.tenure.server.transport;

import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.security.ServerTls;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One call from the node to its own gateway, over TCP like any client's, before the node says it
 * serves. The first call a JVM serves loads and interprets the whole gRPC and Netty server path
 * (thousands of classes); on a busy machine that took a client's first request 15-25 s, longer
 * than its request timeout, so the first session of a freshly started cluster failed. Paying it
 * at start moves that cost to where nobody is waiting on it.
 */
public final class GrpcWarmUp {
    private GrpcWarmUp() {}

    /**
     * Makes one call to the node's own client port and waits for its answer.
     *
     * @param tls the node's TLS, or null if it serves plaintext
     */
    public static void call(String host, int port, @Nullable ServerTls tls) {
        NettyChannelBuilder b = NettyChannelBuilder.forAddress(host, port);
        ManagedChannel channel = (tls == null ? b.usePlaintext() : b.sslContext(tls.selfClient())).build();
        try {
            TenureGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .serverStatus(ServerStatusRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            // No quorum yet is fine: the path is loaded either way. So is a handshake the node
            // refused (its own certificate is not signed by its client CA): TLS is loaded then.
        } finally {
            channel.shutdownNow();
        }
    }
}
