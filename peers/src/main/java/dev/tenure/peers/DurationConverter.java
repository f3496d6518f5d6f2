package dev.tenure.peers;

import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Durations as {@code tenure bench} takes them: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}. */
final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        String v = value.trim();
        if (v.matches("\\d{1,9}ms")) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        if (v.matches("\\d{1,9}[smh]")) {
            // ISO-8601's PT10S, PT2M, PT1H: java.time reads the unit in either case.
            return Duration.parse("PT" + v);
        }
        throw new TypeConversionException(
                "'" + value + "' is not a duration; write a whole number with ms, s, m or h, e.g. 500ms, 10s, 2m");
    }
}
