package dev.tenure.jdbc;

import dev.tenure.client.LockStatus;
import dev.tenure.client.TenureClient;
import java.util.Objects;
import java.util.Optional;

/**
 * Asks Tenure: a token is genuine if it is the lock's current grant, read linearizably through the
 * log ({@link TenureClient#status(String)}). A forged token is nobody's grant; a superseded one is
 * no longer current, and refusing it is right as well. A token confirmed here may be superseded a
 * moment later: that is the ordinary race every fence handles, since the newer token is higher and
 * wins at the next write.
 *
 * <p>Fails closed: when Tenure cannot be reached the status call throws (e.g.
 * {@code UnavailableException}) and the guarded transaction does not commit.
 */
public final class TenureTokenVerifier implements TokenVerifier {
    private final TenureClient client;

    public TenureTokenVerifier(TenureClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public boolean isCurrentGrant(String lock, long token) {
        Optional<LockStatus.Holder> holder = client.status(lock).holder();
        return holder.isPresent() && holder.get().token() == token;
    }
}
