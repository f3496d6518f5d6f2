package dev.tenure.bench.load;

/** A workload could not produce a figure (nothing succeeded, or a helper process failed). */
public final class BenchFailedException extends RuntimeException {
    public BenchFailedException(String message, Throwable cause) {
        super(message, cause);
    }

    public BenchFailedException(String message) {
        super(message);
    }
}
