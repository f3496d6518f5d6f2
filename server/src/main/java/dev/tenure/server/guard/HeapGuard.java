package dev.tenure.server.guard;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.ListenerNotFoundException;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import org.jspecify.annotations.Nullable;

/**
 * Admission control: while the old generation was more than {@link #FULL_SHARE} full of live
 * objects after its last collection, the gateway refuses the writes that carry bytes to keep (KV
 * writes, checkpoints) with {@code RESOURCE_EXHAUSTED}, before they reach the log, and serves the
 * rest: reads, deletes and releases free memory or take none, and sessions and acquires take a
 * bounded few hundred bytes each, so locks are still granted.
 *
 * <p>The limits are the first line ({@link MemoryBudget}): a node whose limits fit its heap never
 * gets here. This is the second, for what the estimate does not count (more requests in flight
 * than it assumes, names beyond Latin-1, a node started with {@code --no-heap-check}): refusing
 * writes is recoverable, running out of memory ends the node. Unlike the limits it is not
 * replicated: each node decides for the requests it serves, before the log, so members never
 * disagree about an entry.
 *
 * <p>It reads the old generation's usage right after each collection (the JVM's notification of
 * it), so the live objects are measured, not garbage waiting for the next one.
 */
public final class HeapGuard implements AutoCloseable {
    /** Past this share of the old generation live after a collection, KV writes and checkpoints are refused. */
    static final double FULL_SHARE = 0.95;

    /** How often, at most, a refusing guard collects the heap to see whether it has room again. */
    static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final @Nullable MemoryPoolMXBean old; // null: no heap pool, or the guard is off
    private final List<NotificationEmitter> watched = new ArrayList<>();
    private final NotificationListener afterCollection = (notification, handback) -> check();
    private volatile @Nullable String refusal;
    /** When {@link #tick} last collected the heap; only the probe's thread reads or writes it. */
    private long lastCollectNanos = System.nanoTime() - RECHECK_NANOS;

    private HeapGuard(@Nullable MemoryPoolMXBean old) {
        this.old = old;
    }

    /**
     * Watches this JVM's old generation (the heap, with no generations) from now on; with
     * {@code -Dtenure.heapGuard=false}, never refuses (for tests that must run a node out of
     * memory).
     */
    public static HeapGuard start() {
        boolean on = !"false".equals(System.getProperty("tenure.heapGuard"));
        HeapGuard guard = new HeapGuard(on ? HeapCapacity.oldGeneration() : null);
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(guard.afterCollection, null, null);
                guard.watched.add(emitter);
            }
        }
        guard.check();
        return guard;
    }

    /** Why a write that adds state is refused now, or null while the heap has room. */
    public @Nullable String refusal() {
        return refusal;
    }

    /**
     * Called once a second. While refusing, collects the heap at most every {@link
     * #RECHECK_NANOS}: with writes refused, the heap fills slowly, and the collection that would
     * show the room that deletes freed might otherwise not come for a long time.
     */
    public void tick() {
        long now = System.nanoTime();
        if (refusal != null && now - lastCollectNanos >= RECHECK_NANOS) {
            lastCollectNanos = now;
            System.gc(); // a full collection: its notification calls check()
        }
        check();
    }

    /** Reads the old generation as the last collection left it. */
    public void check() {
        MemoryUsage after = old == null ? null : old.getCollectionUsage();
        long max = old == null ? -1 : old.getUsage().getMax();
        if (after == null || max <= 0) {
            refusal = null;
            return;
        }
        double full = after.getUsed() / (double) max;
        refusal = full <= FULL_SHARE
                ? null
                : String.format(
                        "heap: the old generation held %.0f%% of its %s after the last collection (over %.0f%%):"
                                + " KV writes and checkpoints are refused until it holds less; reads, deletes,"
                                + " locks and releases are served",
                        full * 100, MemoryBudget.mib(max), FULL_SHARE * 100);
    }

    @Override
    public void close() {
        for (NotificationEmitter emitter : watched) {
            try {
                emitter.removeNotificationListener(afterCollection);
            } catch (ListenerNotFoundException gone) {
                // Not there: nothing to remove.
            }
        }
    }
}
