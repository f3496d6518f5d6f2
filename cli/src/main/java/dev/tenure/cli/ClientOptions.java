package dev.tenure.cli;

import dev.tenure.client.TenureClient;
import dev.tenure.client.spi.Transport;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options every client command takes. One CLI process is one session. */
final class ClientOptions {

    static final String DEFAULT_ENDPOINT = "127.0.0.1:7420";

    @Option(
            names = "--endpoint",
            description =
                    "host:port[,host:port...] of Tenure nodes (default: $TENURE_ENDPOINT or " + DEFAULT_ENDPOINT + ").")
    @Nullable
    String endpoint;

    @Option(
            names = "--ttl",
            description =
                    "Session TTL: how long the server keeps the lease without a renewal (default: ${DEFAULT-VALUE}).",
            defaultValue = "10s",
            converter = DurationConverter.class)
    Duration ttl;

    @Option(
            names = "--disconnect-grace",
            description = "How long the server keeps the session after its connection closes, waiting for a"
                    + " resume (100 ms to the TTL): a dead holder's lock passes on after it, a reset connection"
                    + " is resumed with the lease, and the lease counts as valid only up to it after the last"
                    + " answer on the connection. 0 hands a dead holder's lock on at once but is unsafe: a"
                    + " connection reset by the network then ends the lease while this process still holds it"
                    + " (default: 900ms, or the TTL if shorter).",
            converter = DurationConverter.class)
    @Nullable
    Duration disconnectGrace; // null: the client's default

    @Option(
            names = "--timeout",
            description = "How long a request may take, retries included, before exit 5 (default: ${DEFAULT-VALUE}).",
            defaultValue = "5s",
            converter = DurationConverter.class)
    Duration timeout;

    @Mixin
    TlsOptions tls;

    String endpoints() {
        if (endpoint != null && !endpoint.isBlank()) {
            return endpoint;
        }
        String env = System.getenv("TENURE_ENDPOINT");
        return env == null || env.isBlank() ? DEFAULT_ENDPOINT : env;
    }

    /** The grace asked for, or the client's default: 900 ms, or the TTL if shorter. */
    Duration effectiveGrace() {
        if (disconnectGrace != null) {
            return disconnectGrace;
        }
        return DEFAULT_GRACE.compareTo(ttl) > 0 ? ttl : DEFAULT_GRACE;
    }

    private static final Duration DEFAULT_GRACE = Duration.ofMillis(900);

    TenureClient client() {
        TenureClient.Builder b = TenureClient.builder()
                .endpoints(endpoints())
                .sessionTtl(ttl)
                .requestTimeout(timeout)
                .clientName("tenure-cli pid " + ProcessHandle.current().pid());
        Transport.channelFactory(b, CliChannels.factory(tls.settings()));
        if (disconnectGrace != null) {
            b.disconnectGrace(disconnectGrace);
        }
        return b.build();
    }
}
