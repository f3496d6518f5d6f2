package dev.tenure.client;

/**
 * A running observation of an election ({@link TenureClient#observe}): close it to stop. It is a
 * {@link Watch} of the election's one name, so it survives broken connections and node failures
 * the same way: it watches again, at the next node, after the last revision it delivered.
 */
public final class Observation implements AutoCloseable {
    private final Watch watch;

    Observation(Watch watch) {
        this.watch = watch;
    }

    /** The revision of the last change delivered (or the state synced); -1 before any. */
    public long lastRevision() {
        return watch.lastRevision();
    }

    /** Stops the observation; idempotent. Nothing is delivered after it returns, except a call already running. */
    @Override
    public void close() {
        watch.close();
    }
}
