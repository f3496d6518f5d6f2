package dev.tenure.gateway;

import dev.tenure.api.v1.WatchEvent;
import dev.tenure.core.Change;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Each change's wire event, built once for every watch that sends it: a change under a prefix
 * that a thousand watches follow is otherwise built a thousand times. A direct-mapped table by
 * revision; an entry serves only the very change it was built from (the hub hands every watch
 * the same object), so a replica that restarts at an older revision is never answered from an
 * entry of the revisions before.
 */
final class WireEvents {
    /** Entries, a power of two: about a burst's worth of changes in flight to lagging watches. */
    static final int SIZE = 4_096;

    private record Entry(Change change, WatchEvent event) {}

    private final AtomicReferenceArray<Entry> entries = new AtomicReferenceArray<>(SIZE);

    WatchEvent of(Change change) {
        int slot = (int) (change.revision() & (SIZE - 1));
        Entry e = entries.get(slot);
        // Identity, not equality: the hub hands every watch the same object, and comparing
        // records field by field on each send would cost much of what the table saves.
        @SuppressWarnings("ReferenceEquality")
        boolean same = e != null && e.change() == change;
        if (same) {
            return java.util.Objects.requireNonNull(e).event();
        }
        WatchEvent built = WatchMapping.toWire(change).build();
        entries.lazySet(slot, new Entry(change, built));
        return built;
    }
}
