package dev.tenure.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened, in order: the last lines verbatim (for a failure report) and a hash of every
 * line (for the determinism check: two runs of one seed must hash alike). Lines carry the
 * simulated time, never the wall clock.
 */
final class Trace {
    private final EventLoop loop;
    private final String[] tail;
    private int next;
    private long lines;
    private long hash = 0xcbf29ce484222325L; // FNV-1a offset basis

    Trace(EventLoop loop, int tailLines) {
        this.loop = loop;
        this.tail = new String[tailLines];
    }

    void add(String what) {
        String line = formatTime(loop.nowNanos()) + " " + what;
        tail[next] = line;
        next = (next + 1) % tail.length;
        lines++;
        for (int i = 0; i < line.length(); i++) {
            hash ^= line.charAt(i);
            hash *= 0x100000001b3L;
        }
        hash ^= '\n';
        hash *= 0x100000001b3L;
    }

    long hash() {
        return hash;
    }

    long lines() {
        return lines;
    }

    /** The last lines, oldest first. */
    List<String> tail() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < tail.length; i++) {
            String line = tail[(next + i) % tail.length];
            if (line != null) {
                out.add(line);
            }
        }
        return out;
    }

    /** Simulated seconds with microseconds: {@code 12.345678}. */
    static String formatTime(long nanos) {
        long micros = nanos / 1_000;
        String frac = Long.toString(1_000_000 + micros % 1_000_000).substring(1);
        return (micros / 1_000_000) + "." + frac;
    }
}
