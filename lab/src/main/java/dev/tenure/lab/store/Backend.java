package dev.tenure.lab.store;

import java.util.Optional;

/** Where the lab's resource keeps its values: the store whose checks (or none) are under test. */
public interface Backend extends AutoCloseable {
    /** The write's outcome: applied, or refused with the token that won. */
    record Result(boolean accepted, long currentToken) {
        static final Result ACCEPTED = new Result(true, 0);

        static Result rejected(long currentToken) {
            return new Result(false, currentToken);
        }
    }

    /** Short name for reports: "plain", "tenure-kv", "jdbc-h2". */
    String name();

    /**
     * Writes {@code value} to {@code resource} under {@code lock}'s {@code token}, if this store's
     * check lets it.
     *
     * @throws RuntimeException the outcome is unknown (the store failed or did not answer)
     */
    Result write(String resource, String lock, long token, String value);

    /** The resource's value now, read from the store itself. */
    Optional<String> read(String resource);

    @Override
    void close();
}
