package dev.tenure.core;

/**
 * Tokens carry an epoch in their high bits: token {@code t} is in epoch {@code t >>> 48}. A
 * cluster never issues a token past the end of the epoch its counter is in ({@link
 * #TOKENS_PER_EPOCH_MAX}, 2^48 tokens: about 9 years at a million grants a second, some 600 at the 15,000 a second a
 * node was measured at), so every token a
 * cluster can ever issue is below the start of the next epoch. That is what lets a restore give the
 * new cluster a token floor without knowing what the old one issued after its backup: the floor is
 * the start of the epoch after the backup's highest token ({@link #floorAfter}), above every token
 * the old cluster could issue, before or after the backup, for as long as it runs.
 */
public final class TokenEpoch {
    /** How many low bits count tokens within an epoch. */
    public static final int EPOCH_SHIFT = 48;
    /** Tokens per epoch: the limit one cluster's counter never crosses. */
    public static final long TOKENS_PER_EPOCH_MAX = 1L << EPOCH_SHIFT;

    private TokenEpoch() {}

    /** The epoch {@code token} is in. */
    public static long epoch(long token) {
        return token >>> EPOCH_SHIFT;
    }

    /** The last token of the epoch {@code token} is in: the highest a counter at {@code token} may issue. */
    public static long last(long token) {
        return (epoch(token) << EPOCH_SHIFT) + (TOKENS_PER_EPOCH_MAX - 1);
    }

    /** Whether a counter that issued {@code lastToken} may issue one more in its epoch. */
    static boolean hasNext(long lastToken) {
        return lastToken < last(lastToken);
    }

    /**
     * The start of the epoch after {@code highestToken}'s: above every token a cluster whose counter
     * was at {@code highestToken} can ever issue. A new cluster's counter starts there, so its first
     * token is one above.
     *
     * @throws IllegalArgumentException if {@code highestToken} is negative or in the last epoch a
     *     positive 64-bit token has (there is no next one)
     */
    public static long floorAfter(long highestToken) {
        if (highestToken < 0) {
            throw new IllegalArgumentException("token " + highestToken + " is negative");
        }
        long next = epoch(highestToken) + 1;
        if (next > Long.MAX_VALUE >>> EPOCH_SHIFT) {
            throw new IllegalArgumentException("token " + highestToken + " is in the last token epoch (" + (next - 1)
                    + "): there is no next epoch to start a restored cluster in");
        }
        return next << EPOCH_SHIFT;
    }

    /** The refusal of a grant when the counter's epoch has no token left. */
    static Result.Rejected exhausted(long lastToken) {
        return new Result.Rejected(
                Code.LIMIT,
                "tokensPerEpochMax (" + TOKENS_PER_EPOCH_MAX + ") reached: token " + lastToken + " ends epoch "
                        + epoch(lastToken) + "; a backup restored with a new token floor moves the cluster on"
                        + " (docs/fencing.md)",
                0);
    }
}
