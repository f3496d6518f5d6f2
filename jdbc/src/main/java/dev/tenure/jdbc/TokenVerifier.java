package dev.tenure.jdbc;

/**
 * Confirms that a token is a genuine grant before the fence lets it raise a resource's high-water
 * mark. A fence built without one ({@link JdbcFence.Builder#trustTokens()}, an explicit opt-in) would
 * accept a forged token higher than any Tenure issued once, and then refuse every real holder of
 * the resource for ever (see docs/fencing.md, "Forged tokens").
 *
 * <p>The fence asks only about a token higher than the highest it has accepted for the resource:
 * an equal token was already confirmed, and a lower one is refused anyway. So a holder costs one
 * call per resource, on its first write.
 */
@FunctionalInterface
public interface TokenVerifier {

    /**
     * Whether {@code token} is the current grant of {@code lock}. May do I/O. Returning false
     * refuses the write ({@link UnverifiedTokenException}); throwing fails it closed with that
     * exception (the caller's transaction must roll back).
     */
    boolean isCurrentGrant(String lock, long token);
}
