package dev.tenure.gateway;

import io.grpc.Context;

/**
 * Who a per-client bound counts against: the call's principal, or, on a node without client
 * certificates, the address its connection came from (the transport binds it with {@link #bind}).
 */
public final class Client {
    private static final Context.Key<String> ADDRESS = Context.key("tenure-client-address");

    private Client() {}

    /** "principal NAME", "address HOST", or, outside a call the transport bound, "a client without a certificate". */
    static String current() {
        return Principal.current().map(p -> "principal " + p).orElseGet(() -> {
            String address = ADDRESS.get();
            return address != null ? "address " + address : "a client without a certificate";
        });
    }

    /** {@code context} with {@code host} as the address its call's connection came from. */
    public static Context bind(Context context, String host) {
        return context.withValue(ADDRESS, host);
    }
}
