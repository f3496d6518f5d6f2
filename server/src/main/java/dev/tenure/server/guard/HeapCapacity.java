package dev.tenure.server.guard;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import org.jspecify.annotations.Nullable;

/**
 * How much heap the replicated state can live in: the old generation's maximum. Records that live
 * long (all of the state) end up there, and so does an array larger than the young generation can
 * take (a snapshot image); with the serial collector {@code bin/tenure} uses, that is {@code -Xmx}
 * less the young generation's maximum (a third of the heap by default; {@code bin/tenure} caps
 * it at 32 MiB, leaving 480 of 512 MiB). A collector without generations (or one whose old generation has no maximum of
 * its own, G1's is the whole heap) gives the whole heap.
 */
public final class HeapCapacity {
    private HeapCapacity() {}

    /**
     * The old generation's pool; with a collector without generations, the heap pool with the
     * largest maximum (its one heap); null if this JVM reports no heap pool.
     */
    static @Nullable MemoryPoolMXBean oldGeneration() {
        MemoryPoolMXBean largest = null;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            String name = pool.getName();
            if (pool.getType() != MemoryType.HEAP) {
                continue;
            }
            if (name.contains("Old") || name.contains("Tenured")) {
                return pool;
            }
            if (largest == null || pool.getUsage().getMax() > largest.getUsage().getMax()) {
                largest = pool;
            }
        }
        return largest;
    }

    public static long oldGenerationMaxBytes() {
        MemoryPoolMXBean old = oldGeneration();
        long max = old == null ? -1 : old.getUsage().getMax();
        return max > 0 ? max : heapMaxBytes();
    }

    /** {@code -Xmx} (the JVM's MaxHeapSize); what Runtime reports, without a survivor space, if unreadable. */
    public static long heapMaxBytes() {
        try {
            return Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .getVMOption("MaxHeapSize")
                    .getValue());
        } catch (RuntimeException notHotSpot) {
            return Runtime.getRuntime().maxMemory();
        }
    }
}
