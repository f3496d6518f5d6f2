package dev.tenure.sim;

import dev.tenure.client.spi.TimeSource;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The simulation's only scheduler and its only notion of time: one queue of events ordered by
 * (simulated time, sequence number), run on the calling thread. Two runs that schedule the same
 * events in the same order run them in the same order, which is what makes a seed replay exactly.
 *
 * <p>An event may belong to a {@link Host} (a client process). A paused host's events wait until
 * the pause ends and then run in the order they fell due, as a stopped JVM's timers and socket
 * reads all run at once when it resumes; a crashed host's events never run.
 */
final class EventLoop {
    /** A process whose events can be frozen or discarded. */
    interface Host {
        boolean crashed();

        /** Simulated time the current pause ends; not after now when running. */
        long pausedUntilNanos();
    }

    /** One scheduled action; cancelling it leaves it in the queue, where it is skipped. */
    static final class Event implements TimeSource.Cancellable {
        private long atNanos;
        private long seq;
        private final @Nullable Host host;
        private final Runnable action;
        private boolean cancelled;

        private Event(long atNanos, long seq, @Nullable Host host, Runnable action) {
            this.atNanos = atNanos;
            this.seq = seq;
            this.host = host;
            this.action = action;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>((a, b) -> {
        int c = Long.compare(a.atNanos, b.atNanos);
        return c != 0 ? c : Long.compare(a.seq, b.seq);
    });
    private long nowNanos;
    private long seq;
    private long executed;

    long nowNanos() {
        return nowNanos;
    }

    long executed() {
        return executed;
    }

    /** Schedules {@code action} at {@code atNanos} (now if earlier); {@code host} may be null. */
    Event at(long atNanos, @Nullable Host host, Runnable action) {
        Event e = new Event(Math.max(atNanos, nowNanos), seq++, host, action);
        queue.add(e);
        return e;
    }

    Event after(long delayNanos, @Nullable Host host, Runnable action) {
        return at(nowNanos + Math.max(0, delayNanos), host, action);
    }

    /**
     * Runs events up to {@code endNanos}, calling {@code afterEach} after every event that ran.
     * Stops early, leaving the rest queued, once {@code stop} says so.
     */
    void run(long endNanos, Runnable afterEach, BooleanSupplier stop) {
        Event e;
        while ((e = queue.peek()) != null && e.atNanos <= endNanos) {
            if (stop.getAsBoolean()) {
                return;
            }
            queue.poll();
            if (e.cancelled || (e.host != null && e.host.crashed())) {
                continue;
            }
            nowNanos = e.atNanos;
            if (e.host != null && e.host.pausedUntilNanos() > nowNanos) {
                e.atNanos = e.host.pausedUntilNanos();
                e.seq = seq++;
                queue.add(e);
                continue;
            }
            executed++;
            e.action.run();
            afterEach.run();
        }
        nowNanos = Math.max(nowNanos, endNanos);
    }
}
