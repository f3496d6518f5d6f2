package dev.tenure.lab.history;

/** A span of lab time during which a degraded condition held, e.g. "quorum lost". */
public record Window(String what, long startNanos, long endNanos) {
    public boolean contains(long nanos) {
        return nanos >= startNanos && nanos < endNanos;
    }
}
