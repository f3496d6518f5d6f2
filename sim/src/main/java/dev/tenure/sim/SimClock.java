package dev.tenure.sim;

import dev.tenure.client.spi.TimeSource;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * One client process's monotonic clock, scheduler and random source, driven by the {@link
 * EventLoop}. It runs at rate 1 + ppm/10^6 of simulated time (clock drift) from an arbitrary
 * origin; its timers are loop events owned by the process, so a pause freezes them and a crash
 * discards them.
 *
 * <p>Integer arithmetic only: a timer due at reading r runs at the first simulated nanosecond
 * whose reading is at least r, so a task never observes a clock earlier than it asked for.
 */
final class SimClock implements TimeSource {
    private static final long MILLION = 1_000_000;
    /** Timers further out than this (about 17 minutes) never fire within a run. */
    private static final long NEVER_NANOS = 1_000_000_000_000L;

    private final EventLoop loop;
    private final EventLoop.Host host;
    private final long ppm;
    private final long originSimNanos;
    private final long originReading;
    private final SplittableRandom random;

    /** {@code random}: the process's own, split from the run's: its backoff jitter replays with the seed. */
    SimClock(EventLoop loop, EventLoop.Host host, long ppm, long originReading, SplittableRandom random) {
        if (ppm <= -MILLION) {
            throw new IllegalArgumentException("a clock must move forward: ppm " + ppm);
        }
        this.loop = loop;
        this.host = host;
        this.ppm = ppm;
        this.originSimNanos = loop.nowNanos();
        this.originReading = originReading;
        this.random = random;
    }

    @Override
    public RandomGenerator random() {
        return random;
    }

    long ppm() {
        return ppm;
    }

    @Override
    public long nanoTime() {
        return originReading + (loop.nowNanos() - originSimNanos) * (MILLION + ppm) / MILLION;
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        long dueReading = nanoTime() + Math.max(0, delayNanos);
        return loop.at(simNanosAt(dueReading), host, task);
    }

    /** The first simulated time at which this clock reads at least {@code reading}. */
    long simNanosAt(long reading) {
        long elapsed = reading - originReading;
        if (elapsed <= 0) {
            return originSimNanos;
        }
        if (elapsed > NEVER_NANOS) {
            return Long.MAX_VALUE / 2; // beyond any run; also keeps the product below from overflowing
        }
        return originSimNanos + Math.floorDiv(elapsed * MILLION + (MILLION + ppm) - 1, MILLION + ppm);
    }
}
