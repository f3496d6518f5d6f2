package dev.tenure.lab.store;

import dev.tenure.client.KvEntry;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Tenure's fenced key-value store, reached directly (never through a worker's fault proxy): a
 * write is applied only if its token is the lock's current grant, decided in the replicated log.
 */
public final class TenureKvBackend implements Backend {
    private static final String PREFIX = "lab/";
    private final TenureClient client;

    public TenureKvBackend(String endpoints, Duration requestTimeout) {
        this.client = TenureClient.builder()
                .endpoints(endpoints)
                .requestTimeout(requestTimeout)
                .clientName("tenure lab store")
                .build();
    }

    @Override
    public String name() {
        return "tenure-kv";
    }

    @Override
    public Result write(String resource, String lock, long token, String value) {
        try {
            client.kv().put(PREFIX + resource, value.getBytes(StandardCharsets.UTF_8), lock, token);
            return Result.ACCEPTED;
        } catch (StaleTokenException e) {
            return Result.rejected(e.currentToken());
        }
    }

    @Override
    public Optional<String> read(String resource) {
        return client.kv().get(PREFIX + resource).map(KvEntry::value).map(v -> new String(v, StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        client.close();
    }
}
