package dev.tenure.bench.report;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * What one workload or limit measured: a count of operations over a measured interval, their
 * latency distribution, and figures particular to the workload ({@code extra}, in insertion order).
 *
 * @param workload the workload's name, e.g. {@code parallel} or {@code limit-fsync}
 * @param clients concurrent clients (or in-flight requests) that produced the load
 * @param ops operations completed inside the measured interval
 * @param seconds the measured interval
 * @param latencyNanos one value per operation, in nanoseconds; may be empty, never null
 */
public record Figures(
        String workload, int clients, long ops, double seconds, Histogram latencyNanos, Map<String, Object> extra) {

    public Figures {
        Objects.requireNonNull(workload, "workload");
        Objects.requireNonNull(latencyNanos, "latencyNanos");
        extra = new LinkedHashMap<>(extra);
    }

    public static Figures of(String workload, int clients, long ops, double seconds, Histogram latencyNanos) {
        return new Figures(workload, clients, ops, seconds, latencyNanos, Map.of());
    }

    /** A copy with one more workload-specific figure. */
    public Figures with(String name, Object value) {
        Map<String, Object> more = new LinkedHashMap<>(extra);
        more.put(name, value);
        return new Figures(workload, clients, ops, seconds, latencyNanos, more);
    }

    public double opsPerSecond() {
        return seconds > 0 ? ops / seconds : 0;
    }

    /** The latency at {@code percentile} in milliseconds; 0 when nothing was recorded. */
    public double percentileMs(double percentile) {
        return latencyNanos.getTotalCount() == 0 ? 0 : latencyNanos.getValueAtPercentile(percentile) / 1e6;
    }

    public double maxMs() {
        return latencyNanos.getTotalCount() == 0 ? 0 : latencyNanos.getMaxValue() / 1e6;
    }

    /** A histogram for nanosecond latencies from 1 µs to one hour with 3 significant digits. */
    public static Histogram newHistogram() {
        return new Histogram(1_000, 3_600_000_000_000L, 3);
    }
}
