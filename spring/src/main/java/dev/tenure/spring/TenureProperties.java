package dev.tenure.spring;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code tenure.*} properties of the auto-configured {@link dev.tenure.client.TenureClient}.
 * What is not set keeps the client's default.
 *
 * @param endpoints the nodes' client endpoints, host:port (required)
 * @param sessionTtl how long the cluster keeps the session without a keepalive
 * @param disconnectGrace how long the cluster waits after a broken connection before it ends
 *     the session (the client's must match the cluster's)
 * @param tls client certificate, key and CA, all three or none
 */
@ConfigurationProperties("tenure")
public record TenureProperties(
        @Nullable List<String> endpoints,
        @Nullable Duration sessionTtl,
        @Nullable Duration disconnectGrace,
        @Nullable Tls tls) {

    /** PEM files for mutual TLS: the certificate's CN is the client's principal. */
    public record Tls(
            @Nullable Path cert,
            @Nullable Path key,
            @Nullable Path ca) {}
}
