package dev.tenure.client.spi;

import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

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

    /**
     * Runs {@code task} soon on another thread of the source's, never on the caller's: how the
     * client moves what may be an application's code off a transport thread. Default: {@link
     * #schedule} with no delay.
     */
    default void execute(Runnable task) {
        Cancellable unused = schedule(task, 0);
    }

    /**
     * The random source of what the client spreads in time: the jitter of its retry backoff, so
     * that clients that failed together (a leader failover) do not retry together. A simulated
     * source returns a seeded one, so that a run replays.
     */
    default RandomGenerator random() {
        return ThreadLocalRandom.current();
    }

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
