package dev.tenure.server.transport;

import io.grpc.netty.shaded.io.netty.util.internal.logging.InternalLoggerFactory;
import io.grpc.netty.shaded.io.netty.util.internal.logging.JdkLoggerFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.logging.Filter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Throttles what gRPC's transport and Netty log about a client's misbehaviour: a stream that
 * breaks the HTTP/2 rules (a header name in capitals, a frame on a stream it reset) is logged
 * WARNING "Stream Error" with its stack trace, once per stream; a request whose gRPC framing does
 * not hold (a length prefix over the node's message size, a message cut short by the end of its
 * stream, a flag byte with reserved bits set) is logged WARNING "Exception processing message"
 * with its stack trace, about 4.3 KB, once per request; and a client can open streams as fast as
 * it can send them. Of the records at WARNING and above from each of those loggers, one per
 * interval passes, saying how many were left out since the one before; the rest are counted, not written.
 * Records below WARNING are not logged at the default level anyway and pass untouched.
 *
 * <p>A filter on a {@link Logger} applies to records logged to that logger only, not to its
 * children, so the loggers a client is known to reach are named one by one; the list holds them,
 * as the log manager keeps loggers only weakly and a logger collected would lose its filter. Every
 * other logger of gRPC and Netty is throttled too, at the handlers of the root logger (where
 * every record ends up unless a logger was configured otherwise), with an interval of its own: a
 * path nobody named here cannot flood the node's log either.
 *
 * <p>A record that carries an {@link OutOfMemoryError} is also handed to the node's out-of-memory
 * hook: Netty catches the error where a direct buffer could not be reserved, logs it and goes on,
 * and a node that cannot allocate its buffers serves nothing while looking alive.
 */
public final class TransportWarnings implements Filter {
    /** gRPC's server transport: "Stream Error", "Connection Error", "Exception processing message", and the like. */
    static final List<String> LOGGERS = List.of(
            "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler",
            "io.grpc.netty.shaded.io.grpc.netty.NettyServerTransport",
            "io.grpc.netty.shaded.io.grpc.netty.NettyServerStream");

    /** Where every other gRPC and Netty logger's name begins (Netty shaded into gRPC's jar, or not). */
    static final List<String> TRANSPORT_PREFIXES = List.of("io.grpc.", "io.netty.");

    private static final List<Logger> HELD =
            LOGGERS.stream().map(Logger::getLogger).toList();

    private static volatile Consumer<Throwable> outOfMemory = error -> {};

    private final long intervalNanos;
    private final LongSupplier nanoTime;
    private boolean passed; // guarded by this
    private long lastPassedNanos; // guarded by this
    private long leftOut; // guarded by this

    TransportWarnings(long intervalNanos, LongSupplier nanoTime) {
        this.intervalNanos = intervalNanos;
        this.nanoTime = nanoTime;
    }

    /**
     * Puts a throttle, of one record per {@link ThrottledLog#INTERVAL_SECONDS}, on each logger
     * above, and another on every other transport record at the root logger's handlers; a record
     * with an {@link OutOfMemoryError} goes to {@code outOfMemoryHook} too.
     */
    public static synchronized void install(Consumer<Throwable> outOfMemoryHook) {
        // gRPC's shaded Netty logs to SLF4J when SLF4J is on the class path (as in the tenure
        // jar), which would pass by these filters: the out-of-memory hook and the throttle must
        // see its records, so it logs to java.util.logging, which SLF4J's bridge then carries on.
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        outOfMemory = outOfMemoryHook;
        long interval = TimeUnit.SECONDS.toNanos(ThrottledLog.INTERVAL_SECONDS);
        for (Logger logger : HELD) {
            // One throttle each: a flood of one kind does not hide the first record of another.
            logger.setFilter(new TransportWarnings(interval, System::nanoTime));
        }
        TransportWarnings others = new TransportWarnings(interval, System::nanoTime);
        for (Handler handler : Logger.getLogger("").getHandlers()) {
            Filter own = handler.getFilter() instanceof Backstop b ? b.own() : handler.getFilter();
            handler.setFilter(new Backstop(own, others));
        }
    }

    /** Whether a record of {@code loggerName} is a transport's that no named filter throttled. */
    static boolean unnamedTransport(String loggerName) {
        return loggerName != null
                && !LOGGERS.contains(loggerName)
                && TRANSPORT_PREFIXES.stream().anyMatch(loggerName::startsWith);
    }

    @Override
    public boolean isLoggable(LogRecord record) {
        if (record.getLevel().intValue() < Level.WARNING.intValue()) {
            return true;
        }
        reportOutOfMemory(record.getThrown());
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

    private static void reportOutOfMemory(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof OutOfMemoryError) {
                outOfMemory.accept(t);
                return;
            }
        }
    }

    /**
     * The root handlers' filter: the handler's own filter first, then the throttle for transport
     * records that no named logger's filter saw. The named ones passed theirs already.
     */
    record Backstop(Filter own, TransportWarnings throttle) implements Filter {
        @Override
        public boolean isLoggable(LogRecord record) {
            if (own != null && !own.isLoggable(record)) {
                return false;
            }
            return !unnamedTransport(record.getLoggerName()) || throttle.isLoggable(record);
        }
    }
}
