package dev.tenure.gateway;

import io.grpc.Context;
import java.util.Optional;

/**
 * Who the call being served authenticated as: the CN of the client certificate its TLS connection
 * presented. The transport binds it ({@code dev.tenure.server.security.PrincipalInterceptor} on a node)
 * before any handler runs, in the call's gRPC {@link Context}, so a check anywhere on the call's
 * path (a permission on a lock name) reads it with {@link #current()}.
 */
public final class Principal {
    private static final Context.Key<String> KEY = Context.key("tenure-principal");

    private Principal() {}

    /**
     * The principal of the call whose handler is running on this thread; empty on a node without
     * client certificates (plaintext, or TLS without {@code --tls-ca}), and outside a call.
     */
    public static Optional<String> current() {
        return Optional.ofNullable(KEY.get());
    }

    /** {@code context} with {@code name} as its call's principal: for the transport that checked it. */
    public static Context bind(Context context, String name) {
        return context.withValue(KEY, name);
    }
}
