package dev.tenure.client.spi;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The production {@link TimeSource}: {@link System#nanoTime()}, one daemon thread that only
 * keeps time, and daemon workers that run the tasks. A task can end up running user code (a
 * horizon timer completes lost() futures); if that code blocks, it holds one worker, never the
 * timing thread, so every other session's horizon still fires on time.
 */
final class SystemTimeSource implements TimeSource {
    static final SystemTimeSource INSTANCE = new SystemTimeSource();

    private static final System.Logger LOG = System.getLogger(SystemTimeSource.class.getName());

    private final ScheduledThreadPoolExecutor clock;
    private final ExecutorService workers;

    private SystemTimeSource() {
        clock = new ScheduledThreadPoolExecutor(1, daemon("tenure-clock"));
        // Horizon and keepalive timers are cancelled and re-armed constantly; do not let the dead
        // ones pile up in the queue until their original due time.
        clock.setRemoveOnCancelPolicy(true);
        workers = Executors.newCachedThreadPool(daemon("tenure-timer"));
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Cancellable schedule(Runnable task, long delayNanos) {
        // Every client task re-checks its session's state under the session's lock, so one that
        // was cancelled just after being handed to a worker is harmless.
        ScheduledFuture<?> f =
                clock.schedule(() -> workers.execute(() -> run(task)), Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void execute(Runnable task) {
        workers.execute(() -> run(task));
    }

    private static void run(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.WARNING, "tenure timer task failed", e);
        }
    }

    private static ThreadFactory daemon(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
