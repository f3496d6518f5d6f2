package dev.tenure.client;

/**
 * The client's only clock and scheduler. Every horizon, keepalive and backoff is computed on
 * {@link #nanoTime()} and fired through {@link #schedule}, so tests can move time by hand.
 *
 * <p>Tasks must be short: they run on the source's thread.
 */
public interface TimeSource {
    /** A monotonic reading in nanoseconds; only differences are meaningful. */
    long nanoTime();

    /** Runs {@code task} once, {@code delayNanos} from now (at once if not positive). */
    Cancellable schedule(Runnable task, long delayNanos);

    /** A scheduled task that may still be withdrawn. */
    interface Cancellable {
        /** Withdraws the task if it has not started; idempotent. */
        void cancel();
    }

    /** {@link System#nanoTime()} and one shared daemon scheduler thread. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
