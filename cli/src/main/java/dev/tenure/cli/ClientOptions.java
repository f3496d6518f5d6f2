package dev.tenure.cli;

import dev.tenure.client.TenureClient;
import java.time.Duration;
import picocli.CommandLine.Option;

/** Options every client command takes. One CLI process is one session. */
final class ClientOptions {

    static final String DEFAULT_ENDPOINT = "127.0.0.1:7420";

    @Option(
            names = "--endpoint",
            description =
                    "host:port[,host:port...] of Tenure nodes (default: $TENURE_ENDPOINT or " + DEFAULT_ENDPOINT + ").")
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
                    + " resume: 0 hands a dead holder's lock on at once; above 0 (100 ms to the TTL) a reset"
                    + " connection keeps the lease (default: ${DEFAULT-VALUE}).",
            defaultValue = "0s",
            converter = DurationConverter.class)
    Duration disconnectGrace;

    @Option(
            names = "--timeout",
            description = "How long a request may take, retries included, before exit 5 (default: ${DEFAULT-VALUE}).",
            defaultValue = "5s",
            converter = DurationConverter.class)
    Duration timeout;

    String endpoints() {
        if (endpoint != null && !endpoint.isBlank()) {
            return endpoint;
        }
        String env = System.getenv("TENURE_ENDPOINT");
        return env == null || env.isBlank() ? DEFAULT_ENDPOINT : env;
    }

    TenureClient client() {
        return TenureClient.builder()
                .endpoints(endpoints())
                .sessionTtl(ttl)
                .disconnectGrace(disconnectGrace)
                .requestTimeout(timeout)
                .clientName("tenure-cli pid " + ProcessHandle.current().pid())
                .build();
    }
}
