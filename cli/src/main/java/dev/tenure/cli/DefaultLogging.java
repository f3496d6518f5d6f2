package dev.tenure.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * The log of every {@code tenure} process until a command sets its own (the server's
 * {@code --log-format} and {@code --log-level}): the text format on stderr at INFO. Without it,
 * logback would write DEBUG to stdout, where the commands print their results.
 */
public final class DefaultLogging extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        ServerLogging.apply(context, LogSettings.defaults());
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
