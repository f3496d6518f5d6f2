package dev.tenure.testkit;

import java.time.Duration;

/**
 * The one factor every real-time test timeout is multiplied by. A slow or busy machine raises it
 * ({@code -Dtenure.test.timeScale=3}, or {@code TENURE_TEST_TIME_SCALE=3} in the environment, which
 * child processes inherit); the system property wins over the environment; the default is 1.
 *
 * <p>Only timeouts scale: how long a test waits at most before it calls a condition missed. A
 * pause that is itself the point of a test ({@link Pause}) does not, since the test argues about
 * that very duration.
 */
public final class TimeScale {
    public static final String PROPERTY = "tenure.test.timeScale";
    public static final String ENV = "TENURE_TEST_TIME_SCALE";

    private static final double FACTOR = parse(System.getProperty(PROPERTY), System.getenv(ENV));

    private TimeScale() {}

    /** The factor in force for this JVM. */
    public static double factor() {
        return FACTOR;
    }

    /** {@code timeout} times the factor. */
    public static Duration scaled(Duration timeout) {
        return Duration.ofNanos((long) (timeout.toNanos() * FACTOR));
    }

    /** {@code timeoutMs} times the factor, in milliseconds. */
    public static long scaledMillis(long timeoutMs) {
        return (long) (timeoutMs * FACTOR);
    }

    static double parse(String property, String env) {
        String given = property != null ? property : env;
        String source = property != null ? "-D" + PROPERTY : ENV;
        if (given == null || given.isBlank()) {
            return 1;
        }
        double factor;
        try {
            factor = Double.parseDouble(given.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + " must be a number, was '" + given + "'", e);
        }
        if (!(factor > 0) || Double.isInfinite(factor)) {
            throw new IllegalArgumentException(source + " must be a positive number, was '" + given + "'");
        }
        return factor;
    }
}
