package dev.tenure.lab.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One direction of one proxied connection: a reader that decides per chunk, by the proxy's mode
 * at the moment the chunk arrives, whether and when it is delivered, and a writer that delivers
 * in arrival order at each chunk's due time. Deciding at arrival is what makes a delayed write
 * "in flight": once read, it lands later even if its sender is killed meanwhile.
 */
final class Pipe {
    /** A chunk to write at {@code dueNanos}; {@code bytes == null} is the end of the stream. */
    // A chunk is only queued and written, never compared: the array's identity equality is no fault.
    @SuppressWarnings("ArrayRecordComponent")
    private record Chunk(long dueNanos, byte @Nullable [] bytes) {}

    private static final int CHUNK_BYTES = 16 * 1024;

    private final FaultProxy proxy;
    private final boolean up;
    private final Socket from;
    private final Socket to;
    private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    private final AtomicLong received;
    private long lastDueNanos;
    /** The connection was cut: nothing read from now on is delivered, whatever the mode. */
    private volatile boolean severed;

    Pipe(FaultProxy proxy, boolean up, Socket from, Socket to, AtomicLong received) {
        this.proxy = proxy;
        this.up = up;
        this.from = from;
        this.to = to;
        this.received = received;
    }

    void start(String name) {
        Thread reader = new Thread(this::read, name + (up ? "-up-read" : "-down-read"));
        Thread writer = new Thread(this::write, name + (up ? "-up-write" : "-down-write"));
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    void sever() {
        severed = true;
        queue.clear();
    }

    int pending() {
        return queue.size();
    }

    private void read() {
        byte[] buf = new byte[CHUNK_BYTES];
        try {
            InputStream in = from.getInputStream();
            int n;
            while ((n = in.read(buf)) >= 0) {
                received.addAndGet(n);
                byte[] bytes = java.util.Arrays.copyOf(buf, n);
                offer(bytes);
            }
        } catch (IOException closedOrReset) {
            // the sender is gone: treated as the end of its stream
        }
        offer(null);
    }

    /** Decides the chunk's fate by the mode now; end-of-stream follows the same rule as data. */
    private void offer(byte @Nullable [] bytes) {
        if (severed) {
            return;
        }
        FaultMode mode = proxy.mode();
        long now = System.nanoTime();
        long due;
        switch (mode) {
            case PASS -> due = now;
            case DELAY -> due = now + proxy.delayNanos();
            case DROP_RESPONSES -> {
                if (!up) {
                    return;
                }
                due = now;
            }
            case DROP_REQUESTS -> {
                if (up) {
                    return;
                }
                due = now;
            }
            default -> { // BLACKHOLE, RESET: nothing gets through, not even the end of the stream
                return;
            }
        }
        synchronized (this) {
            // A chunk never overtakes an earlier one, even when the delay shrinks.
            due = Math.max(due, lastDueNanos);
            lastDueNanos = due;
            queue.add(new Chunk(due, bytes));
        }
    }

    private void write() {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Chunk c = queue.take();
                long wait = c.dueNanos() - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                if (c.bytes() == null) {
                    to.shutdownOutput();
                    return;
                }
                out.write(c.bytes());
                out.flush();
            }
        } catch (IOException | InterruptedException gone) {
            queue.clear(); // the receiver is gone or the proxy closed: nothing more can land
        }
    }
}
