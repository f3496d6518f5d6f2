package dev.tenure.server.gateway;

import dev.tenure.gateway.Scheduler;
import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.fatal.FatalErrors;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's {@link Scheduler} on a node: one daemon thread. Once the node is stopping, what
 * is handed to it is dropped, which is safe (see Scheduler).
 *
 * <p>An action that throws is a bug that left the gateway's state unknown (a session's grace that
 * never ends, a wait never answered). An executor would keep the exception in a future nobody
 * reads; here it ends the node instead, as a thread that died would (status 14), so a supervisor
 * restarts it with a gateway rebuilt from the log.
 */
final class TimerThread implements Scheduler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TimerThread.class);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "tenure-gateway-timer");
        t.setDaemon(true);
        return t;
    });

    private final FatalErrors fatalErrors;

    TimerThread(FatalErrors fatalErrors) {
        this.fatalErrors = fatalErrors;
    }

    @Override
    public void later(long delayMs, Runnable action) {
        try {
            // watched() reports what the action throws: the future has nothing more to say.
            var unused = timer.schedule(watched(action), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // The node is stopping: the session ends at its TTL, which is later and so still safe.
        }
    }

    @Override
    public void soon(Runnable action) {
        try {
            timer.execute(watched(action));
        } catch (RejectedExecutionException stopping) {
            // Whatever it would have sent goes with the node's streams.
        }
    }

    private Runnable watched(Runnable action) {
        return () -> {
            try {
                action.run();
            } catch (Throwable t) {
                LOG.error("a gateway task failed", t);
                fatalErrors.ended(FatalCause.of(t, FatalCause.THREAD_DIED), "a gateway task failed: " + t);
            }
        };
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
