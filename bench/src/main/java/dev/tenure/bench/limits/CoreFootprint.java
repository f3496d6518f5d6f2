package dev.tenure.bench.limits;

import dev.tenure.bench.report.Figures;
import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Limits;
import dev.tenure.core.Result;
import dev.tenure.core.StateMachine;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The core's own heap per session holding one lock: the part of the server's memory per
 * session (what {@code hold} measures) that the state machine alone takes, without gateway or
 * gRPC. Live heap after a full GC, before and after opening the sessions in one machine.
 */
final class CoreFootprint {
    private static final long NOW_MS = 1_000;
    private static final long TTL_MS = 3_600_000;

    private CoreFootprint() {}

    static Figures run(int sessions) throws InterruptedException {
        // Room for every session and its lock, whatever the defaults a node's heap is sized for.
        StateMachine machine =
                new StateMachine(Limits.defaults().with("sessionsMax", sessions).with("locksMax", sessions));
        long before = liveHeap();
        long start = System.nanoTime();
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < sessions; i++) {
            Result opened = machine.apply(NOW_MS, new Command.OpenSession(TTL_MS, "bench"));
            long id = ((Result.SessionOpened) opened).sessionId();
            if (!(machine.apply(NOW_MS, new Command.Acquire(id, 1, "lock-" + i, 0)) instanceof Result.Granted)) {
                throw new IllegalStateException("lock-" + i + " was not granted");
            }
            machine.drainEvents(events);
            events.clear();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long bytes = liveHeap() - before;
        return Figures.of("limit-core-memory", 1, sessions, seconds, Figures.newHistogram())
                .with("latency", "not timed")
                .with("sessions", sessions)
                .with("core_heap_bytes_per_session", Math.round((double) bytes / sessions))
                .with("tokens", machine.lastToken());
    }

    private static long liveHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
