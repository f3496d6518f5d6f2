package dev.tenure.server.transport;

import dev.tenure.gateway.Client;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Binds the host each call's connection came from ({@link Client}), so that a bound per client
 * holds for clients without a certificate too: by host, not by port, since a client that opens
 * more connections must not get more of it.
 */
public final class ClientAddresses implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        String host = remote instanceof InetSocketAddress inet
                ? inet.getAddress() != null ? inet.getAddress().getHostAddress() : inet.getHostString()
                : String.valueOf(remote);
        return Contexts.interceptCall(Client.bind(Context.current(), host), call, headers, next);
    }
}
