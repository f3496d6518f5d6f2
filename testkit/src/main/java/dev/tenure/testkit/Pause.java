package dev.tenure.testkit;

import java.time.Duration;

/**
 * Letting real time pass on purpose: a fault that lasts a while, a window in which something must
 * not happen, a worker that paces itself, load that runs before a kill. The duration is what the
 * test argues about, so it is never scaled; a test waiting for something to happen uses
 * {@link Await} instead.
 */
public final class Pause {
    private Pause() {}

    public static void forMillis(long ms) throws InterruptedException {
        Thread.sleep(ms);
    }

    public static void of(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
    }
}
