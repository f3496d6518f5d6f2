package dev.tenure.client;

import dev.tenure.client.spi.TimeSource;
import java.time.Duration;
import java.util.PriorityQueue;
import java.util.random.RandomGenerator;

/**
 * A {@link TimeSource} whose time moves only when a test advances it. Due tasks run in due-time
 * order (then scheduling order) on the advancing thread, with the clock set to their due time.
 */
final class ManualTimeSource implements TimeSource {
    private long now = 1_000_000_000_000L; // arbitrary origin: only differences matter
    private long sequence;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private RandomGenerator random = new Midpoint();

    @Override
    public synchronized long nanoTime() {
        return now;
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, long delayNanos) {
        Task t = new Task(now + Math.max(0, delayNanos), sequence++, task);
        tasks.add(t);
        notifyAll();
        return () -> {
            synchronized (ManualTimeSource.this) {
                tasks.remove(t);
            }
        };
    }

    /**
     * Every draw is the middle of its range unless a test sets a generator: backoff jitter then
     * gives each delay its mean, which tests can state exactly.
     */
    @Override
    public synchronized RandomGenerator random() {
        return random;
    }

    synchronized void random(RandomGenerator random) {
        this.random = random;
    }

    void advance(Duration d) {
        long target;
        synchronized (this) {
            target = now + d.toNanos();
        }
        advanceTo(target);
    }

    /** Runs every task due up to {@code target}, then leaves the clock at {@code target}. */
    void advanceTo(long target) {
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.dueNanos - target > 0) {
                    now = Math.max(now, target);
                    return;
                }
                tasks.poll();
                now = Math.max(now, next.dueNanos);
            }
            next.task.run();
        }
    }

    /** Advances to the earliest pending task and runs what is due then. */
    void advanceToNext() {
        long due;
        synchronized (this) {
            if (tasks.isEmpty()) {
                return;
            }
            due = tasks.peek().dueNanos;
        }
        advanceTo(due);
    }

    /**
     * Waits (real time, bounded) until at least {@code count} tasks are pending: for tasks that
     * other threads schedule. Returns false if that did not happen within {@code max}.
     */
    synchronized boolean awaitPending(int count, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (tasks.size() < count) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    synchronized int pending() {
        return tasks.size();
    }

    private static final class Task implements Comparable<Task> {
        final long dueNanos;
        final long seq;
        final Runnable task;

        Task(long dueNanos, long seq, Runnable task) {
            this.dueNanos = dueNanos;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Task o) {
            int c = Long.compare(dueNanos - o.dueNanos, 0);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    /** A "random" source whose bounded draws are the middle of their range. */
    private static final class Midpoint implements RandomGenerator {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public long nextLong(long bound) {
            return bound / 2;
        }
    }
}
