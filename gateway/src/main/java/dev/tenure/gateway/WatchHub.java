package dev.tenure.gateway;

import dev.tenure.core.Change;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One node's change feed: the last {@code revisionsKeptMax} changes its replica applied, and the
 * watchers reading them. The service thread feeds it every change, in revision order ({@link
 * #applied}); watchers subscribe from the gateway's threads ({@link #watch}).
 *
 * <p>No gap, no repeat: revisions are contiguous (each change takes the next one), and a watcher
 * is a cursor into the kept changes: it is sent every change after its cursor, in order, and the
 * cursor moves past each change sent. A watcher that asks to resume from a revision older than
 * the oldest kept is refused ({@link WatchSink#end} with REVISION_COMPACTED, naming the oldest kept
 * revision), and a watcher that falls so far behind that the changes it has not read yet are no
 * longer kept is ended the same way: a watcher learns that it must list again, it never misses a
 * change in silence. On a start (or a restart) nothing is kept: the feed begins at the revision
 * of the state the replica started from.
 *
 * <p>A watch without a revision starts from the current state of its names: the service thread
 * reads it ({@link #serveStarts}) between two applies, so the state and the revision it is read
 * at agree, and the changes after that revision follow it.
 *
 * <p>Threads: the service thread calls {@link #reset}, {@link #applied} and {@link #serveStarts};
 * any thread calls {@link #watch} and closes watchers. The kept changes and the watcher set are
 * guarded by this object's monitor; sending runs on {@code sending}, at most one task per watcher
 * at a time, never on the service thread, and never while the monitor is held.
 */
public final class WatchHub {
    /** A watch with no revision to resume from: it starts from the current state. */
    public static final long NO_REVISION = -1;

    /** Reads the current state of a watch's names for {@link #serveStarts}; the service thread's. */
    public interface StateReader {
        /** The revision of the last change applied. */
        long revision();

        /** The current leases, waiters and keys of the names, as changes at {@link #revision()}. */
        List<Change> current(String name, boolean prefix);
    }

    private final int watchersMax;
    private final int revisionsKeptMax;
    private final Executor sending;
    /** The kept changes, oldest first: {@code keptCount} of them from {@code keptHead}, circular. */
    private final Change[] kept;

    private int keptHead;
    private int keptCount;
    private final LinkedHashSet<Watcher> watchers = new LinkedHashSet<>();
    private final ArrayDeque<Watcher> starting = new ArrayDeque<>();
    /** Every change after this revision is kept (or not applied yet). */
    private long floor;
    /** The revision of the last change applied. */
    private long revision;

    public WatchHub(int watchersMax, int revisionsKeptMax, Executor sending) {
        if (watchersMax < 1 || revisionsKeptMax < 1) {
            throw new IllegalArgumentException("watchersMax and revisionsKeptMax must be at least 1, were "
                    + watchersMax + " and " + revisionsKeptMax);
        }
        this.watchersMax = watchersMax;
        this.revisionsKeptMax = revisionsKeptMax;
        this.sending = sending;
        this.kept = new Change[revisionsKeptMax];
    }

    /**
     * Service thread: the replica (re)started at {@code revision}; nothing before it is kept, so a
     * watcher that resumes from an earlier revision is refused rather than served with a gap.
     */
    public synchronized void reset(long revision) {
        java.util.Arrays.fill(kept, null);
        keptHead = 0;
        keptCount = 0;
        this.floor = revision;
        this.revision = revision;
    }

    /** Service thread, after each apply: its changes, in revision order. */
    public void applied(List<Change> changes) {
        if (changes.isEmpty()) {
            return;
        }
        List<Watcher> wake;
        synchronized (this) {
            for (Change c : changes) {
                if (c.revision() != revision + 1) {
                    throw new IllegalStateException("change " + c.revision() + " after revision " + revision);
                }
                revision = c.revision();
                if (keptCount == kept.length) {
                    floor = kept[keptHead].revision();
                    kept[keptHead] = c;
                    keptHead = (keptHead + 1) % kept.length;
                } else {
                    kept[(keptHead + keptCount) % kept.length] = c;
                    keptCount++;
                }
            }
            wake = new ArrayList<>(watchers);
        }
        for (Watcher w : wake) {
            w.wake();
        }
    }

    /** Service thread, between applies: reads the state of each watch that starts from it. */
    public void serveStarts(StateReader reader) {
        List<Watcher> served = new ArrayList<>();
        synchronized (this) {
            Watcher w;
            while ((w = starting.pollFirst()) != null) {
                if (watchers.contains(w)) {
                    w.started(reader.current(w.name, w.prefix), reader.revision());
                    served.add(w);
                }
            }
        }
        for (Watcher w : served) {
            w.wake();
        }
    }

    /** Whether a watch waits for {@link #serveStarts}: the service thread has work. */
    public synchronized boolean startsPending() {
        return !starting.isEmpty();
    }

    /** The revision of the last change applied. */
    public synchronized long revision() {
        return revision;
    }

    /** The oldest revision a watch may resume from: every change after it is kept. */
    public synchronized long oldestResumable() {
        return floor;
    }

    public synchronized int watcherCount() {
        return watchers.size();
    }

    /**
     * Starts a watch of {@code name} (every name that starts with it, when {@code prefix}):
     * after {@code fromRevision}, or from the current state ({@link #NO_REVISION}). A revision
     * ahead of this replica is waited for: the changes up to it are skipped when it applies them,
     * since the watcher has them (a replica that is behind serves its applied prefix of the log).
     *
     * @return the watch, to close; or null if it was refused, after {@code sink.end} said why
     */
    public @org.jspecify.annotations.Nullable AutoCloseable watch(
            String name, boolean prefix, long fromRevision, WatchSink sink) {
        Watcher w;
        synchronized (this) {
            if (watchers.size() >= watchersMax) {
                sink.end(
                        WatchSink.Refusal.WATCHERS_FULL,
                        "watchersMax (" + watchersMax + ") reached on this node: it serves " + watchers.size()
                                + " watches; close one or watch through another node");
                return null;
            }
            if (fromRevision != NO_REVISION && fromRevision < floor) {
                sink.end(WatchSink.Refusal.COMPACTED, compacted(fromRevision));
                return null;
            }
            w = new Watcher(this, name, prefix, sink, fromRevision);
            watchers.add(w);
            if (fromRevision == NO_REVISION) {
                starting.addLast(w);
                return w;
            }
        }
        w.wake();
        return w;
    }

    private String compacted(long after) {
        return "revision " + after + " is older than this node keeps (it can resume after revision " + floor
                + " or later; it keeps the last " + revisionsKeptMax
                + " changes, revisionsKeptMax, and none from before its last start): list again and watch from"
                + " the current state";
    }

    synchronized void remove(Watcher w) {
        watchers.remove(w);
        starting.remove(w);
    }

    /**
     * The kept changes after {@code cursor} that {@code w} watches, out of at most {@code scanMax}
     * (so the monitor is held briefly), and the cursor they move it to; or null if the changes
     * after {@code cursor} are no longer kept. A cursor ahead of the replica moves nowhere.
     */
    synchronized Watcher.@org.jspecify.annotations.Nullable Batch next(Watcher w, long cursor, int scanMax) {
        if (cursor < floor) {
            return null;
        }
        List<Change> out = new ArrayList<>();
        long moved = cursor;
        // Revisions are contiguous: the change after the cursor is the (cursor - floor)th kept.
        for (long i = cursor - floor; i < keptCount && moved - cursor < scanMax; i++) {
            Change c = kept[(int) ((keptHead + i) % kept.length)];
            moved = c.revision();
            if (w.covers(c.name())) {
                out.add(c);
            }
        }
        return new Watcher.Batch(out, moved);
    }

    String fellBehind(long cursor) {
        synchronized (this) {
            return "this watch fell behind: the changes after revision " + cursor
                    + " are no longer kept (revisionsKeptMax " + revisionsKeptMax + ", oldest resumable revision "
                    + floor + "); list again and watch from the current state";
        }
    }

    void send(Runnable task) {
        sending.execute(task);
    }
}
