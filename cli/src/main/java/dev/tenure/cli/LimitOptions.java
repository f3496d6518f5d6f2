package dev.tenure.cli;

import dev.tenure.core.Limits;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** `--limit NAME=VALUE`: a limit by the name its refusal gives, a size with an optional binary unit. */
final class LimitOptions {
    private LimitOptions() {}

    /** {@code base} with each of {@code settings}; bad input (exit 2) names what is wrong. */
    static Limits apply(Limits base, Map<String, String> settings) {
        Limits limits = base;
        for (Map.Entry<String, String> e : settings.entrySet()) {
            if (!Limits.names().contains(e.getKey())) {
                throw new IllegalArgumentException("--limit " + e.getKey() + ": no such limit; the limits are "
                        + String.join(", ", Limits.names()));
            }
            limits = limits.with(e.getKey(), value(e.getKey(), e.getValue()));
        }
        return limits;
    }

    /**
     * {@code limits} with the read lease {@code --read-lease} gives, if it gives one: the limit
     * readLeaseMs, which {@code settings} (the {@code --limit} options) may set only to the same
     * value (as the file {@code --print-config} writes does).
     */
    static Limits withReadLease(Limits limits, Map<String, String> settings, java.time.@Nullable Duration lease) {
        if (lease == null) {
            return limits;
        }
        if (lease.isNegative() || lease.toMillis() > Limits.READ_LEASE_MS_MAX || lease.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("--read-lease " + lease.toMillis() + "ms: a whole number of"
                    + " milliseconds from 0s (off) to " + Limits.READ_LEASE_MS_MAX + "ms");
        }
        String limit = settings.get("readLeaseMs");
        if (limit != null && value("readLeaseMs", limit) != lease.toMillis()) {
            throw new IllegalArgumentException("--read-lease " + lease.toMillis() + "ms and --limit readLeaseMs="
                    + limit + " set the same limit to different values: give one");
        }
        return limits.with("readLeaseMs", lease.toMillis());
    }

    /** A whole number, with an optional KiB, MiB or GiB (powers of 1024) and _ between digits. */
    static long value(String name, String text) {
        String t = text.trim().replace("_", "");
        long unit = 1;
        String lower = t.toLowerCase(Locale.ROOT);
        for (String[] suffix : new String[][] {{"kib", "10"}, {"mib", "20"}, {"gib", "30"}}) {
            if (lower.endsWith(suffix[0])) {
                unit = 1L << Integer.parseInt(suffix[1]);
                t = t.substring(0, t.length() - 3).trim();
                break;
            }
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(
                    "--limit " + name + "=" + text + ": not a whole number (sizes may end in KiB, MiB or GiB)");
        }
    }
}
