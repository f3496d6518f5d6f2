package dev.tenure.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Sizes in bytes as people type them: {@code 1048576}, {@code 512KiB}, {@code 16MiB}, {@code 1GiB}. */
final class SizeConverter implements ITypeConverter<Long> {

    private static final Pattern FORMAT = Pattern.compile("(\\d{1,12})(|B|KiB|MiB|GiB)");

    @Override
    public Long convert(String value) {
        Matcher m = FORMAT.matcher(value.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + value
                    + "' is not a size; write a whole number of bytes, or one with KiB, MiB or GiB, e.g. 16MiB");
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "KiB" -> n << 10;
            case "MiB" -> n << 20;
            case "GiB" -> n << 30;
            default -> n;
        };
    }
}
