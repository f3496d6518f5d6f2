package dev.tenure.cli.it;

import dev.tenure.testkit.Pause;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * When each process of a holder ended, on the wall clock, so that it can be compared with the
 * time a node says it granted the lock to the next holder ({@code Grant.granted_at_ms}).
 *
 * <p>A thread of its own scans /proc every {@link #PACE_MS} ms for the live processes of one
 * `tenure run` command's tree (as {@link ProcessTree} finds them: by the {@code TENURE_LOCK} their
 * environment carries, so an orphan is still one) and for the pids it was given (the holder's own
 * JVM). A process counts as ended once a scan no longer finds it alive: gone from /proc, a zombie
 * (it runs nothing any more), or its pid reused by a process that started later.
 *
 * <p>Why a recorded end can never be too early: the time kept for a process is read after the end
 * of the first scan that did not find it, and that scan looked at /proc after the process had been
 * seen alive: the exit happened before that time. It is late by at most one scan and its pause
 * ({@link #resolution()} says how long scans took), so it can fail to prove an order that held by
 * less, never prove one that did not hold. Times come from the same clock as the node's grant
 * times: {@code System.currentTimeMillis} on the same host (see {@link #endedBefore}).
 *
 * <p>A process that starts and ends between two scans is never seen; the trees watched here start
 * before the watch and stop growing.
 */
final class TreeWatch implements AutoCloseable {
    /** Between two scans: enough to leave the shared machine's cores to the processes watched. */
    static final long PACE_MS = 2;

    private final String lock;
    private final List<Long> pids;
    private final Clock clock = Clock.systemUTC();
    private final Thread thread;
    private final Object guard = new Object();
    // guarded by guard: pid -> what it runs, its start (ticks since boot), when it was first seen and ended
    private final Map<Long, Seen> seen = new TreeMap<>();
    private long scans; // guarded by guard
    private long slowestScanNanos; // guarded by guard
    private volatile boolean closed;

    private record Seen(String what, long startTicks, Instant first, Instant ended) {}

    TreeWatch(String lock, long... pids) {
        this.lock = lock;
        this.pids = new ArrayList<>();
        for (long pid : pids) {
            this.pids.add(pid);
        }
        scan(); // the processes alive now are known before the caller acts
        thread = new Thread(this::run, "tree-watch-" + lock);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!closed) {
            scan();
            try {
                Pause.forMillis(PACE_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void scan() {
        long startNanos = System.nanoTime();
        Instant before = clock.instant();
        Map<Long, Seen> alive = new TreeMap<>();
        for (String entry : ProcessTree.live(lock)) {
            long pid = Long.parseLong(entry.substring(0, entry.indexOf(' ')));
            long start = startTicks(pid);
            if (start >= 0) {
                alive.put(pid, new Seen(entry, start, before, null));
            }
        }
        for (long pid : pids) {
            long start = startTicks(pid);
            if (start >= 0) {
                alive.put(pid, new Seen("pid " + pid + " (given)", start, before, null));
            }
        }
        Instant after = clock.instant();
        synchronized (guard) {
            for (Map.Entry<Long, Seen> e : seen.entrySet()) {
                Seen s = e.getValue();
                Seen now = alive.get(e.getKey());
                if (s.ended() == null && (now == null || now.startTicks() != s.startTicks())) {
                    e.setValue(new Seen(s.what(), s.startTicks(), s.first(), after));
                }
            }
            alive.forEach(seen::putIfAbsent);
            scans++;
            slowestScanNanos = Math.max(slowestScanNanos, System.nanoTime() - startNanos);
        }
    }

    /**
     * The start of {@code pid} in clock ticks since boot, or -1 if it is not alive: no such
     * process, or a zombie.
     */
    private static long startTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(") ") + 2).split(" ", -1);
            if (fields[0].equals("Z") || fields[0].equals("X")) {
                return -1;
            }
            return Long.parseLong(fields[19]); // field 22 of stat; fields[0] is field 3
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** How many processes were seen; each is still alive or has ended. */
    int seen() {
        synchronized (guard) {
            return seen.size();
        }
    }

    /** When the last of the processes seen ended; null while one is alive. */
    Instant allEnded() {
        return ended(what -> true);
    }

    /**
     * When the last of the processes seen that {@code which} picks (by "pid pgid N cmdline", or
     * "pid N (given)") ended; null while one is alive or none was seen.
     */
    Instant ended(Predicate<String> which) {
        synchronized (guard) {
            Instant last = Instant.MIN;
            boolean any = false;
            for (Seen s : seen.values()) {
                if (!which.test(s.what())) {
                    continue;
                }
                any = true;
                if (s.ended() == null) {
                    return null;
                }
                last = s.ended().isAfter(last) ? s.ended() : last;
            }
            return any ? last : null;
        }
    }

    /** The processes still alive. */
    List<String> alive() {
        synchronized (guard) {
            return seen.values().stream()
                    .filter(s -> s.ended() == null)
                    .map(Seen::what)
                    .toList();
        }
    }

    /** Each process seen and when it ended, relative to {@code origin}, for the test's output. */
    String report(Instant origin) {
        synchronized (guard) {
            StringBuilder b = new StringBuilder();
            for (Seen s : seen.values()) {
                b.append("\n    ")
                        .append(s.ended() == null ? "alive" : ms(origin, s.ended()) + " ms")
                        .append("  ")
                        .append(oneLine(s.what()));
            }
            return b.toString();
        }
    }

    /** A command line on one line, cut short: the supervisor's is a whole script. */
    private static String oneLine(String what) {
        String line = what.replaceAll("\\s+", " ");
        return line.length() <= 80 ? line : line.substring(0, 77) + "...";
    }

    /** The longest a scan took, plus the pause between two: how late an end time may be. */
    Duration resolution() {
        synchronized (guard) {
            return Duration.ofNanos(slowestScanNanos).plusMillis(PACE_MS);
        }
    }

    long scans() {
        synchronized (guard) {
            return scans;
        }
    }

    /**
     * Whether every process seen had ended strictly before {@code grantedAtMs}, a node's grant time.
     * The node's clock is the wall clock read once at its start and advanced by the monotonic clock
     * in whole milliseconds, so it is never ahead of this host's wall clock (unless the wall clock
     * was stepped back meanwhile); the grant took effect when its log entry was applied, after that
     * time. An end recorded before it is an exit before the grant.
     */
    boolean endedBefore(long grantedAtMs) {
        return endedBefore(grantedAtMs, what -> true);
    }

    /** As {@link #endedBefore(long)}, for the processes {@code which} picks. */
    boolean endedBefore(long grantedAtMs, Predicate<String> which) {
        Instant all = ended(which);
        return all != null && all.isBefore(Instant.ofEpochMilli(grantedAtMs));
    }

    static long ms(Instant from, Instant to) {
        return Duration.between(from, to).toMillis();
    }

    @Override
    public void close() {
        closed = true;
        try {
            thread.join();
        } catch (InterruptedException e) {
            // Stopped while closing: the interrupt stays set for the test's next wait to see.
            Thread.currentThread().interrupt();
        }
    }
}
