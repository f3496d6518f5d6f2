package dev.tenure.core;

import dev.tenure.core.Command.ListLocks;
import dev.tenure.core.Result.Holder;
import dev.tenure.core.Result.LockEntry;
import dev.tenure.core.Result.LockList;
import dev.tenure.core.Result.Rejected;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The lock listing, one page per log entry: a read, so it changes no state, and linearizable
 * within its page because the page is taken at the entry's place in the log.
 *
 * <p>Which locks are listed: those that are held, waited for or in their lock delay (the ones
 * {@link Limits#locksMax} bounds). A free lock kept only for its history is not listed; its
 * status still shows that history.
 *
 * <p>Paging: the next page starts after the last name returned. A lock that exists throughout a
 * listing is listed exactly once, in name order, because the table is ordered by name and every
 * page resumes strictly after a name already passed. Pages are read at different log positions,
 * so a listing is not a snapshot: a lock created or freed while it runs may or may not appear.
 *
 * <p>Bounds: at most {@code limit} locks, and at most {@code bytesMax} bytes by {@link
 * #entryBytes}, which over-counts the wire size of a listed lock, so a page the gateway encodes
 * never exceeds the message limit it derived {@code bytesMax} from. A page always carries at
 * least one lock if one matches (a single lock is bounded by the name and principal limits): a
 * listing can never stall on a page that returns nothing.
 */
final class LockListing {
    /**
     * Bytes a listed lock costs on the wire beyond its three strings: field tags, length prefixes
     * and the varints of the holder (session, token, times, policy) and the counts, each at its
     * largest encoding (a 64-bit varint takes 10 bytes).
     */
    static final int ENTRY_FIXED_BYTES = 160;

    /**
     * Bytes each current lease adds as an element of the listed lock's holders, beyond its two
     * strings: its length prefix and fields at their largest encoding. The oldest lease is also
     * the entry's holder, which {@link #ENTRY_FIXED_BYTES} counts.
     */
    static final int HOLDER_FIXED_BYTES = 100;

    private LockListing() {}

    static Result page(State state, ListLocks c) {
        Rejected bad = shape(c, state.limits);
        if (bad != null) {
            return bad;
        }
        // Names with the prefix are contiguous in name order: start at the prefix itself, or just
        // after the cursor when it lies past the prefix's start.
        boolean fromCursor = c.after().compareTo(c.prefix()) >= 0 && !c.after().isEmpty();
        Iterator<LockRecord> it = fromCursor
                ? state.locks.from(c.after(), false).iterator()
                : state.locks.from(c.prefix(), true).iterator();
        List<LockEntry> out = new ArrayList<>();
        long bytes = 0;
        while (it.hasNext()) {
            LockRecord lock = it.next();
            if (!lock.name.startsWith(c.prefix())) {
                break;
            }
            if (lock.idle()) {
                continue;
            }
            LockEntry e = entry(state, lock);
            long size = entryBytes(e);
            if (out.size() == c.limit() || (!out.isEmpty() && bytes + size > c.bytesMax())) {
                return new LockList(List.copyOf(out), true, state.nowMs);
            }
            out.add(e);
            bytes += size;
        }
        return new LockList(List.copyOf(out), false, state.nowMs);
    }

    /** The gateway refuses these before the log; a replica must never throw on a logged one. */
    private static @Nullable Rejected shape(ListLocks c, Limits limits) {
        if (c.prefix() == null || c.after() == null) {
            return Shapes.invalid("prefix and after must not be null (empty: none)");
        }
        if (c.limit() <= 0 || c.bytesMax() <= 0) {
            return Shapes.invalid("limit and bytesMax must be positive, were " + c.limit() + " and " + c.bytesMax());
        }
        Rejected prefix = c.prefix().isEmpty() ? null : Shapes.lockName(c.prefix(), limits);
        Rejected after = c.after().isEmpty() ? null : Shapes.lockName(c.after(), limits);
        return Shapes.first(prefix, after);
    }

    private static LockEntry entry(State state, LockRecord lock) {
        return new LockEntry(lock.name, Reads.holders(state, lock), lock.waiterCount(), lock.delayUntilMs);
    }

    /** An upper bound on the wire size of {@code e} (see {@link #ENTRY_FIXED_BYTES}). */
    static long entryBytes(LockEntry e) {
        long bytes = ENTRY_FIXED_BYTES + Shapes.utf8Length(e.lock());
        Holder first = e.holder();
        if (first != null) {
            // The wire repeats the first lease as `holder`.
            bytes += Shapes.utf8Length(first.clientName()) + Shapes.utf8Length(first.principal()) + valueBytes(first);
        }
        for (Holder h : e.holders()) {
            bytes += HOLDER_FIXED_BYTES
                    + Shapes.utf8Length(h.clientName())
                    + Shapes.utf8Length(h.principal())
                    + valueBytes(h);
        }
        return bytes;
    }

    /** An election leader's value: its bytes, a field tag and a length of up to five bytes. */
    private static long valueBytes(Holder h) {
        int value = h.value().size();
        return value == 0 ? 0 : value + 6;
    }
}
