package dev.tenure.jdbc;

import dev.tenure.client.StaleTokenException;

/**
 * The fence's {@link TokenVerifier} did not confirm a token higher than the resource's highest
 * accepted one as the lock's current grant: forged, already superseded, or checked against the
 * wrong lock name. Nothing was written and the high-water mark did not move.
 */
public class UnverifiedTokenException extends StaleTokenException {
    private final String lock;

    public UnverifiedTokenException(String resource, String lock, long token, long highestAccepted) {
        super(
                "write to '" + resource + "' with token " + token + " rejected: Tenure does not confirm it as the"
                        + " current grant of lock '" + lock + "' (forged, superseded, or the wrong lock name);"
                        + " the highest accepted token stays " + highestAccepted,
                resource,
                token,
                highestAccepted,
                null);
        this.lock = lock;
    }

    public String lock() {
        return lock;
    }
}
