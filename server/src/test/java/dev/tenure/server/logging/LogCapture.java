package dev.tenure.server.logging;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * The events one class logs while a test runs, read back as the test's evidence: what a node
 * writes is asserted on its logger, not on a stream handed to it.
 */
public final class LogCapture implements AutoCloseable {
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private final Logger logger;

    private LogCapture(Class<?> writer) {
        this.logger = ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(writer);
        events.start();
        logger.addAppender(events);
    }

    /** Captures what {@code writer}'s logger logs from now until {@link #close()}. */
    public static LogCapture of(Class<?> writer) {
        return new LogCapture(writer);
    }

    /** The messages logged so far, formatted, in order. */
    public synchronized List<String> lines() {
        return events.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** The events logged so far, in order. */
    public synchronized List<ILoggingEvent> events() {
        return List.copyOf(events.list);
    }

    @Override
    public void close() {
        logger.detachAppender(events);
    }
}
