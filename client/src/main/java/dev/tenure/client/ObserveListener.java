package dev.tenure.client;

/**
 * Hears one observed election ({@link TenureClient#observe}), on one thread at a time, in
 * revision order. A listener that throws ends nothing: the exception is dropped and the next view
 * comes.
 */
public interface ObserveListener {
    /**
     * The election's leader as of {@link LeaderView#revision()}: first its current state (or, when
     * the observation resumes after a revision, the first change after it), then one call per new
     * leader, per leader gone, and per new value its leader proclaims. Every term is reported, in
     * order, however short: a leader elected and gone again before an earlier call returned is
     * still reported, then its end.
     */
    void onLeader(LeaderView view);

    /**
     * The observation ended for good: {@link TenureException.Code#REVISION_COMPACTED} (the node no
     * longer keeps the changes after the last revision reported, so a term may have passed unseen:
     * observe again, from the current state), {@link TenureException.Code#DENIED}, or {@link
     * TenureException.Code#INVALID_REQUEST}. Broken connections and node failures do not end it.
     */
    default void onEnded(TenureException cause) {}
}
