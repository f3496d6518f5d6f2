package dev.tenure.client;

import dev.tenure.client.spi.TimeSource;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A session's user-visible events (listener calls, lost() completions) in the order its lock
 * decided them. Events are added while holding the lock and run after releasing it by whichever
 * thread drains first, so a timer thread's CONNECTED→UNCERTAIN can never be reported after a
 * gRPC thread's UNCERTAIN→CONNECTED that followed it. Nothing foreign runs under a client lock,
 * nor on a transport's event loop: events added there run on one of the time source's workers
 * ({@link OffLoop}).
 */
final class EventQueue {
    private static final System.Logger LOG = System.getLogger(EventQueue.class.getName());

    private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean draining = new AtomicBoolean();
    private final TimeSource time;

    EventQueue(TimeSource time) {
        this.time = time;
    }

    void add(Runnable event) {
        queue.add(event);
    }

    /**
     * Runs queued events unless another thread (or this one, further up the stack: a callback
     * that calls back into the client) is already running them; that one will run these too.
     */
    void drain() {
        if (OffLoop.onEventLoop()) {
            if (!queue.isEmpty()) {
                time.execute(this::drain);
            }
            return;
        }
        while (!queue.isEmpty() && draining.compareAndSet(false, true)) {
            try {
                Runnable event;
                while ((event = queue.poll()) != null) {
                    try {
                        event.run();
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "tenure client event failed", e);
                    }
                }
            } finally {
                draining.set(false);
            }
        }
    }
}
