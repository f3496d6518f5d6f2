package dev.tenure.testkit;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Waiting for a condition in real time: polls it until it holds, or fails with an
 * {@link AssertionError} that names what was awaited, for how long, and the last value seen. The
 * timeout is multiplied by {@link TimeScale}; the poll interval is not.
 *
 * <pre>{@code
 * Await.atMost(Duration.ofSeconds(30)).every(Duration.ofMillis(50))
 *         .until("node healthy", () -> "ok".equals(server.status().getHealth()));
 * }</pre>
 */
public final class Await {
    private static final Duration DEFAULT_INTERVAL = Duration.ofMillis(20);

    private final Duration timeout;
    private final Duration interval;
    private final @Nullable Supplier<String> details;

    private Await(Duration timeout, Duration interval, @Nullable Supplier<String> details) {
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.interval = Objects.requireNonNull(interval, "interval");
        this.details = details;
    }

    /** Gives a condition {@code timeout} (times the scale) to hold, looking every 20 ms. */
    public static Await atMost(Duration timeout) {
        return new Await(timeout, DEFAULT_INTERVAL, null);
    }

    /** Looks every {@code interval} instead (zero: as soon as the last look returned). */
    public Await every(Duration interval) {
        return new Await(timeout, interval, details);
    }

    /** Adds {@code details} (computed only on failure: logs, other state) to the failure message. */
    public Await failureDetails(Supplier<String> details) {
        return new Await(timeout, interval, details);
    }

    /** A condition that may throw what the code it looks at throws. */
    @FunctionalInterface
    public interface Condition<E extends Exception> {
        boolean holds() throws E;
    }

    /** A look at some state that may throw what the code it looks at throws. */
    @FunctionalInterface
    public interface Probe<T, E extends Exception> {
        T look() throws E;
    }

    /** Returns once {@code condition} holds; fails once the timeout passed without it. */
    public <E extends Exception> void until(String what, Condition<E> condition) throws E, InterruptedException {
        until(what, condition::holds, Boolean::booleanValue);
    }

    /**
     * Looks with {@code probe} until what it sees passes {@code done}, and returns that; fails once
     * the timeout passed, with the last thing seen.
     */
    public <T, E extends Exception> T until(String what, Probe<T, E> probe, Predicate<? super T> done)
            throws E, InterruptedException {
        Duration scaled = TimeScale.scaled(timeout);
        long start = System.nanoTime();
        while (true) {
            T seen = probe.look();
            if (done.test(seen)) {
                return seen;
            }
            if (System.nanoTime() - start > scaled.toNanos()) {
                throw new AssertionError(failure(what, scaled, seen));
            }
            if (!interval.isZero()) {
                Thread.sleep(interval.toMillis(), interval.toNanosPart() % 1_000_000);
            }
        }
    }

    private String failure(String what, Duration scaled, Object seen) {
        StringBuilder b = new StringBuilder("gave up awaiting ").append(what).append(" after ");
        b.append(seconds(scaled)).append(" s");
        if (TimeScale.factor() != 1) {
            b.append(" (").append(seconds(timeout)).append(" s × time scale ").append(TimeScale.factor());
            b.append(")");
        }
        if (!(seen instanceof Boolean)) {
            b.append("; last seen: ").append(seen);
        }
        if (details != null) {
            b.append("\n").append(details.get());
        }
        return b.toString();
    }

    private static String seconds(Duration d) {
        return String.valueOf(d.toMillis() / 1000.0);
    }
}
