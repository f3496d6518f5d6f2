package dev.tenure.client;

/**
 * Hears one watch, on one thread at a time, in revision order. A listener that throws ends
 * nothing: the exception is dropped and the next event comes. Listeners run on the JVM's watch
 * threads, as many as it has processors and shared by every watch of every client in it (never
 * on a thread that sessions need): one that blocks delays the other watches, so hand long work
 * to an executor of your own.
 */
public interface WatchListener {
    /** An item of the current state (see {@link WatchEvent#current()}), or a change. */
    void onEvent(WatchEvent event);

    /** The current state has been delivered whole, as of {@code revision}; changes after it follow. */
    default void onSynced(long revision) {}

    /**
     * The watch ended for good: {@link TenureException.Code#REVISION_COMPACTED} (the changes after
     * its last revision are no longer kept: list again), {@link TenureException.Code#DENIED}, or
     * {@link TenureException.Code#INVALID_REQUEST}. Broken connections and node failures do not
     * end it: it resumes by itself.
     */
    default void onEnded(TenureException cause) {}
}
