package dev.tenure.server.gateway;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.logging.Filter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Throttles what gRPC's transport logs about a client's misbehaviour: a stream that breaks the
 * HTTP/2 rules (a header name in capitals, a frame on a stream it reset) is logged WARNING
 * "Stream Error" with its stack trace, once per stream, and a client can open streams as fast as
 * it can send them. Of the records at WARNING and above from those loggers, one per interval
 * passes, saying how many were left out since the one before; the rest are counted, not written.
 * Records below WARNING are not logged at the default level anyway and pass untouched.
 *
 * <p>A filter on a {@link Logger} applies to records logged to that logger only, not to its
 * children, so the loggers are named one by one; the list holds them, as the log manager keeps
 * loggers only weakly and a logger collected would lose its filter.
 */
final class TransportWarnings implements Filter {
    /** gRPC's server transport: "Stream Error", "Connection Error", and the like. */
    static final List<String> LOGGERS = List.of(
            "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler",
            "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport");

    private static final List<Logger> HELD =
            LOGGERS.stream().map(Logger::getLogger).toList();

    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private boolean passed; // guarded by this
    private long lastPassedNanos; // guarded by this
    private long leftOut; // guarded by this

    TransportWarnings(long intervalNanos, LongSupplier nanoTime) {
        this.intervalNanos = intervalNanos;
        this.nanoTime = nanoTime;
    }

    /** Puts one throttle, of one record per {@link ThrottledLog#INTERVAL_SECONDS}, on every logger above. */
    static void install() {
        TransportWarnings throttle =
                new TransportWarnings(TimeUnit.SECONDS.toNanos(ThrottledLog.INTERVAL_SECONDS), System::nanoTime);
        for (Logger logger : HELD) {
            logger.setFilter(throttle);
        }
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        if (record.getLevel().intValue() < Level.WARNING.intValue()) {
            return true;
        }
        long left;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            if (passed && now - lastPassedNanos < intervalNanos) {
                leftOut++;
                return false;
            }
            passed = true;
            lastPassedNanos = now;
            left = leftOut;
            leftOut = 0;
        }
        if (left > 0) {
            record.setMessage(
                    record.getMessage() + " [" + left + " more such records since the previous one, not logged]");
        }
        return true;
    }
}
