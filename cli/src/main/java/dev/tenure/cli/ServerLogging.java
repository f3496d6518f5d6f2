package dev.tenure.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * Sets up the log of a {@code tenure} process: one appender, on stderr (stdout carries a node's
 * one announced line, which scripts and tests read), in the chosen format, with the chosen
 * levels; and, for a node, gRPC's and Netty's java.util.logging routed into the same log.
 */
final class ServerLogging {
    /** The text format: time with its offset, level, the logger's short name, the message. */
    static final String TEXT_PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0} %msg%n%ex";

    private ServerLogging() {}

    /**
     * Replaces whatever the log was set up with by {@code settings}, and routes java.util.logging
     * into it: a level set here is the level the JDK's loggers run at too (so gRPC and Netty do
     * not build records nobody writes).
     */
    static void configure(LogSettings settings) {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        // Before any level is set, so that each one reaches java.util.logging as it is set.
        LevelChangePropagator propagator = new LevelChangePropagator();
        propagator.setContext(context);
        propagator.setResetJUL(true);
        propagator.start();
        context.addListener(propagator);
        apply(context, settings);
        routeJdkLogging();
    }

    /** The appender and levels of {@code settings} on {@code context}, which has neither yet. */
    static void apply(LoggerContext context, LogSettings settings) {
        Encoder<ILoggingEvent> encoder = encoder(context, settings.format());
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("stderr");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.addAppender(stderr);
        root.setLevel(settings.rootLevel());
        settings.levels().forEach((name, level) -> context.getLogger(name).setLevel(level));
        warmUp(context, encoder);
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, LogSettings.Format format) {
        if (format == LogSettings.Format.JSON) {
            JsonEncoder json = new JsonEncoder();
            json.setContext(context);
            // What an event says, not the context's properties or the bare SLF4J template: the
            // formatted message is the line an operator would read in the text format.
            json.setWithSequenceNumber(false);
            json.setWithNanoseconds(false);
            json.setWithContext(false);
            json.setWithArguments(false);
            json.setWithFormattedMessage(true);
            json.start();
            return json;
        }
        PatternLayoutEncoder text = new PatternLayoutEncoder();
        text.setContext(context);
        text.setPattern(TEXT_PATTERN);
        text.start();
        return text;
    }

    /**
     * Formats one event now, while the process can still open files: the time stamp needs the
     * time zone's rules, which the JDK reads from a file the first time; out of file descriptors
     * (the moment Netty logs EMFILE), that first read would fail (see LoggingWarmUp).
     */
    private static void warmUp(LoggerContext context, Encoder<ILoggingEvent> encoder) {
        LoggingEvent event = new LoggingEvent(
                ServerLogging.class.getName(), context.getLogger("warm-up"), Level.INFO, "warm-up", null, null);
        encoder.encode(event);
    }

    /** gRPC's and Netty's java.util.logging records go to SLF4J, and only there. */
    private static void routeJdkLogging() {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        LogManager.getLogManager().getLogger("").addHandler(new FilteredBridge());
    }

    /**
     * The bridge, honouring the filter put on it: the node throttles the transport's records with
     * a filter on the root logger's handlers (TransportWarnings), which SLF4J's handler would not
     * consult on its own.
     */
    static final class FilteredBridge extends SLF4JBridgeHandler {
        @Override
        public void publish(LogRecord record) {
            if (isLoggable(record)) {
                super.publish(record);
            }
        }
    }
}
