package dev.tenure.jdbc;

import java.time.Duration;

/**
 * The one place real-time test waits come from. Slow machines scale every timeout with
 * {@code -Dtenure.test.timeScale=N}; nothing here sleeps for a fixed time to let something happen.
 */
final class Waits {
    private static final double SCALE = Double.parseDouble(System.getProperty("tenure.test.timeScale", "1"));
    private static final long POLL_MS = 5;

    private Waits() {}

    static Duration scaled(Duration d) {
        return Duration.ofNanos((long) (d.toNanos() * SCALE));
    }

    interface Check {
        boolean holds() throws Exception;
    }

    /** Polls until {@code check} holds, or fails the test after {@code timeout} (scaled). */
    static void until(String what, Duration timeout, Check check) throws Exception {
        long deadline = System.nanoTime() + scaled(timeout).toNanos();
        while (!check.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + scaled(timeout) + " waiting until " + what);
            }
            Thread.sleep(POLL_MS);
        }
    }
}
