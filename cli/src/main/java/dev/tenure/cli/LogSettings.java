package dev.tenure.cli;

import ch.qos.logback.classic.Level;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * What {@code --log-format} and {@code --log-level} ask of a node's log: the line format, the root
 * level and a level per logger (a package or a class). Parsed whole before anything is set, so
 * that a bad value changes nothing.
 */
record LogSettings(Format format, Level rootLevel, Map<String, Level> levels) {

    /** The root level when none is given: what an operator reads, without gRPC's and Netty's debug. */
    static final Level ROOT_LEVEL_DEFAULT = Level.INFO;

    /** The levels an operator may name, in the order they are listed in errors. */
    static final List<String> LEVEL_NAMES = List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF");

    private static final Pattern LOGGER_NAME =
            Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");

    /** How each log event is written to stderr. */
    enum Format {
        /** One compact line: time, level, the logger's short name, the message. */
        TEXT,
        /** One JSON object per line (logback's JsonEncoder). */
        JSON
    }

    static LogSettings defaults() {
        return new LogSettings(Format.TEXT, ROOT_LEVEL_DEFAULT, Map.of());
    }

    /**
     * Reads the {@code --log-level} values in order: {@code LEVEL} sets the root level and
     * {@code LOGGER=LEVEL} one logger's; a later value for the same logger wins.
     */
    static LogSettings of(Format format, List<String> levelOptions) {
        Level root = ROOT_LEVEL_DEFAULT;
        Map<String, Level> levels = new TreeMap<>();
        for (String option : levelOptions) {
            int eq = option.indexOf('=');
            if (eq < 0) {
                root = level(option, option);
                continue;
            }
            String logger = option.substring(0, eq).trim();
            if (!LOGGER_NAME.matcher(logger).matches()) {
                throw new IllegalArgumentException("--log-level " + option + ": '" + logger
                        + "' is not a logger name (a package or class, such as dev.tenure.server)");
            }
            levels.put(logger, level(option.substring(eq + 1), option));
        }
        return new LogSettings(format, root, Map.copyOf(levels));
    }

    private static Level level(String name, String option) {
        String upper = name.trim().toUpperCase(Locale.ROOT);
        if (!LEVEL_NAMES.contains(upper)) {
            throw new IllegalArgumentException("--log-level " + option + ": '" + name.trim()
                    + "' is not a level; use one of " + String.join(", ", LEVEL_NAMES));
        }
        return Level.toLevel(upper);
    }

    /** {@code text} or {@code json}, as typed. */
    static final class FormatConverter implements ITypeConverter<Format> {
        @Override
        public Format convert(String value) {
            return switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "text" -> Format.TEXT;
                case "json" -> Format.JSON;
                default -> throw new TypeConversionException("'" + value + "' is not a log format; use text or json");
            };
        }
    }

    /** The level a logger runs at: its own, else the nearest enclosing package's, else the root's. */
    Level effectiveLevel(String logger) {
        @Nullable String name = logger;
        while (name != null) {
            Level own = levels.get(name);
            if (own != null) {
                return own;
            }
            int dot = name.lastIndexOf('.');
            name = dot < 0 ? null : name.substring(0, dot);
        }
        return rootLevel;
    }
}
