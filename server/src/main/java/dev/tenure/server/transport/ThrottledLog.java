package dev.tenure.server.transport;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * A throttle in front of a logger, for events a client can cause as fast as it can send them: at
 * most one warning per interval, and each says how many were left out since the one before. One
 * line per bad request with a stack trace let 1,000 three-byte requests write 6.3 MB of the
 * node's log. The logger is the class whose events these are, so that its level applies.
 */
public final class ThrottledLog {
    static final long INTERVAL_SECONDS = 10;

    private final Logger logger;
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private boolean logged; // guarded by this
    private long lastLineNanos; // guarded by this
    private long leftOut; // guarded by this

    public ThrottledLog(Logger logger) {
        this(logger, TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS), System::nanoTime);
    }

    public ThrottledLog(Logger logger, long intervalNanos, LongSupplier nanoTime) {
        this.logger = logger;
        this.intervalNanos = intervalNanos;
        this.nanoTime = nanoTime;
    }

    /**
     * Logs {@code line} as a warning unless one went out less than an interval ago; then only
     * counts it. A logger whose level leaves warnings out costs neither the line nor the count.
     */
    public void log(Supplier<String> line) {
        if (!logger.isWarnEnabled()) {
            return;
        }
        long left;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            if (logged && now - lastLineNanos < intervalNanos) {
                leftOut++;
                return;
            }
            logged = true;
            lastLineNanos = now;
            left = leftOut;
            leftOut = 0;
        }
        logger.warn(left == 0 ? line.get() : line.get() + " [" + left + " more since the previous line, not logged]");
    }
}
