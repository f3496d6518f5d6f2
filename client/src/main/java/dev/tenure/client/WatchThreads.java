package dev.tenure.client;

import dev.tenure.client.spi.TimeSource;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that call every watch listener of this JVM's clients: as many as it has processors,
 * each watch's calls in order on one of them at a time ({@link Watch}). Not the time source's
 * workers, which start a thread per task waiting: a thousand watches given a burst would have a
 * thousand threads runnable at once, and a session's echo answer, read on an event loop, would
 * wait behind each one's turn on the processors. Bounded, the delivery queues instead. A listener
 * that blocks holds one of these threads (docs/architecture.md, 'Back-pressure').
 */
final class WatchThreads {
    private static final Executor POOL = pool(Runtime.getRuntime().availableProcessors());

    private WatchThreads() {}

    /** Where {@code time}'s clients run watch listeners: these threads, or a test's time source. */
    static Executor of(TimeSource time) {
        return time == TimeSource.system() ? POOL : time::execute;
    }

    private static Executor pool(int threads) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool =
                new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "tenure-watch-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        // Idle threads end: a JVM whose clients watch nothing keeps none.
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
