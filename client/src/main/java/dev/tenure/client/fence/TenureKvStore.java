package dev.tenure.client.fence;

import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import java.util.Objects;

/**
 * Tenure's own fenced key-value store as a {@link FencedStore}: the resource is the key, the
 * change is the value. The check is stricter than the contract's minimum: the replicated state
 * machine accepts a write only if its token is the lock's <em>current</em> grant, decided in log
 * order together with grants and releases, so the check and the write are one log entry and no
 * grant can come between them.
 */
public final class TenureKvStore implements FencedStore<byte[]> {
    private final TenureClient client;

    public TenureKvStore(TenureClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * @throws FenceRejectedException the token is not the lock's current grant; nothing changed
     */
    @Override
    public void checkAndWrite(String resource, String lock, long token, byte[] value) {
        try {
            client.put(resource, value, lock, token);
        } catch (StaleTokenException e) {
            throw new FenceRejectedException(e.getMessage(), resource, token, e.currentToken(), e);
        }
    }
}
