package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * Runs one thread per client, each repeating its cycle back to back (a closed loop: a client
 * sends its next request only when the last one is answered), for the warm-up and then the
 * measured interval. An operation counts when it completes inside the measured interval.
 *
 * <p>Failures do not stop the run (a leader change may fail a few requests); they are counted,
 * and the client pauses briefly before its next cycle so that a dead cluster is not hammered.
 */
public final class ClosedLoop {

    /** Returned by a cycle that completed no operation worth counting (e.g. the first grant of a handoff chain). */
    public static final long NO_SAMPLE = -1;

    private static final long PROGRESS_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final long PROGRESS_FROM_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long ERROR_PAUSE_MILLIS = 20;

    /** One client's repeated operation. */
    @FunctionalInterface
    public interface Cycle {
        /**
         * Performs one operation and returns the latency to record for it in nanoseconds, or
         * {@link #NO_SAMPLE}. Throwing counts an error.
         */
        long once() throws Exception;
    }

    private ClosedLoop() {}

    public static Figures run(String workload, LoadConfig config, List<Cycle> cycles) throws InterruptedException {
        Recorder recorder = new Recorder(1_000, 3_600_000_000_000L, 3);
        LongAdder measuredOps = new LongAdder();
        LongAdder allOps = new LongAdder();
        LongAdder errors = new LongAdder();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        long start = System.nanoTime();
        long measureFrom = start + config.warmup().toNanos();
        long measureTo = measureFrom + config.duration().toNanos();
        AtomicLong windowStart = new AtomicLong(measureFrom);

        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < cycles.size(); i++) {
            Cycle cycle = cycles.get(i);
            Thread t = new Thread(
                    () -> {
                        long end;
                        do {
                            long sample;
                            try {
                                sample = cycle.once();
                            } catch (Exception | AssertionError e) {
                                errors.increment();
                                firstError.compareAndSet(null, e);
                                pause();
                                sample = NO_SAMPLE;
                            }
                            end = System.nanoTime();
                            if (sample == NO_SAMPLE) {
                                continue;
                            }
                            allOps.increment();
                            if (end >= windowStart.get() && end <= measureTo) {
                                measuredOps.increment();
                                recorder.recordValue(Math.max(sample, 1_000));
                            }
                        } while (end < measureTo);
                    },
                    "bench-" + workload + "-" + i);
            t.setDaemon(true);
            threads.add(t);
        }
        threads.forEach(Thread::start);
        reportProgress(workload, config, start, measureTo, allOps);
        // Values recorded during warm-up are dropped here; the interval histogram then holds
        // only the measured interval.
        for (Thread t : threads) {
            t.join();
        }
        Histogram h = recorder.getIntervalHistogram();
        Figures f = Figures.of(
                workload, cycles.size(), measuredOps.sum(), config.duration().toNanos() / 1e9, h);
        if (errors.sum() > 0) {
            f = f.with("errors", errors.sum()).with("first_error", describe(firstError.get()));
        }
        if (measuredOps.sum() == 0 && firstError.get() != null) {
            throw new BenchFailedException(
                    workload + ": no operation succeeded; first error: " + describe(firstError.get()),
                    firstError.get());
        }
        return f;
    }

    /** Sleeps until the measured interval ends, printing a progress line every few seconds on long runs. */
    private static void reportProgress(String workload, LoadConfig config, long start, long measureTo, LongAdder ops)
            throws InterruptedException {
        boolean talk = measureTo - start > PROGRESS_FROM_NANOS;
        long lastOps = 0;
        long lastAt = start;
        while (true) {
            long now = System.nanoTime();
            long left = measureTo - now;
            if (left <= 0) {
                return;
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(left, PROGRESS_EVERY_NANOS));
            now = System.nanoTime();
            if (talk && now < measureTo) {
                long total = ops.sum();
                double rate = (total - lastOps) / ((now - lastAt) / 1e9);
                config.progress()
                        .printf(
                                Locale.ROOT,
                                "tenure bench: %s %ds of %ds, %d ops, %.1f ops/s over the last %ds%n",
                                workload,
                                TimeUnit.NANOSECONDS.toSeconds(now - start),
                                TimeUnit.NANOSECONDS.toSeconds(measureTo - start),
                                total,
                                rate,
                                Math.round((now - lastAt) / 1e9));
                lastOps = total;
                lastAt = now;
            }
        }
    }

    /** Prints progress for a phase that is not a closed loop (setting up sessions, takeover rounds). */
    static void progress(LoadConfig config, String workload, String message) {
        config.progress().println("tenure bench: " + workload + " " + message);
    }

    static String describe(@Nullable Throwable e) {
        if (e == null) {
            return "";
        }
        Throwable root = e;
        while (root.getCause() != null && root.getMessage() == null) {
            root = root.getCause();
        }
        String m = root.getMessage();
        return root.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }

    private static void pause() {
        try {
            Thread.sleep(ERROR_PAUSE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
