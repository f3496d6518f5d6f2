package dev.tenure.server.gateway;

import dev.tenure.gateway.Scheduler;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's {@link Scheduler} on a node: one daemon thread. Once the node is stopping, what
 * is handed to it is dropped, which is safe (see Scheduler).
 */
final class TimerThread implements Scheduler, AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tenure-gateway-timer");
        t.setDaemon(true);
        return t;
    });

    @Override
    public void later(long delayMs, Runnable action) {
        try {
            timer.schedule(action, delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // The node is stopping: the session ends at its TTL, which is later and so still safe.
        }
    }

    @Override
    public void soon(Runnable action) {
        try {
            timer.execute(action);
        } catch (RejectedExecutionException stopping) {
            // Whatever it would have sent goes with the node's streams.
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
