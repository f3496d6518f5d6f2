package dev.tenure.server.transport;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A log of events a client can cause as fast as it can send them: at most one line per interval,
 * and each line says how many were left out since the one before. One line per bad request with
 * a stack trace let 1,000 three-byte requests write 6.3 MB of the node's log.
 */
public final class ThrottledLog {
    static final long INTERVAL_SECONDS = 10;

    private final PrintStream out;
    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private boolean logged; // guarded by this
    private long lastLineNanos; // guarded by this
    private long leftOut; // guarded by this

    public ThrottledLog(PrintStream out) {
        this(out, TimeUnit.SECONDS.toNanos(INTERVAL_SECONDS), System::nanoTime);
    }

    public ThrottledLog(PrintStream out, long intervalNanos, LongSupplier nanoTime) {
        this.out = out;
        this.intervalNanos = intervalNanos;
        this.nanoTime = nanoTime;
    }

    /** Logs {@code line} unless a line went out less than an interval ago; then only counts it. */
    public void log(Supplier<String> line) {
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
        out.println(left == 0 ? line.get() : line.get() + " [" + left + " more since the previous line, not logged]");
    }
}
