package dev.tenure.gateway;

import dev.tenure.core.Change;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One watch of a {@link WatchHub}: its names and its cursor, the revision of the last change it
 * was sent (or skipped, as not its names'). Sending runs as one task at a time on the hub's
 * sending executor: {@link #wake} schedules it unless it is scheduled already, and a wake that
 * comes while it runs makes it run once more, so no change is left unsent until the next one.
 */
final class Watcher implements AutoCloseable {
    /** Changes looked at per visit of the hub's monitor. */
    private static final int SCAN_MAX = 1_024;

    record Batch(List<Change> changes, long cursor) {}

    final String name;
    final boolean prefix;
    private final WatchHub hub;
    private final WatchSink sink;
    /** Sending task only (and the service thread's {@link #started}, before it schedules the task). */
    private long cursor;

    private @Nullable List<Change> initial;
    private boolean waitingForStart;
    // Guarded by this.
    private boolean scheduled;
    private boolean again;
    private boolean closed;

    Watcher(WatchHub hub, String name, boolean prefix, WatchSink sink, long fromRevision) {
        this.hub = hub;
        this.name = name;
        this.prefix = prefix;
        this.sink = sink;
        this.cursor = fromRevision;
        this.waitingForStart = fromRevision == WatchHub.NO_REVISION;
    }

    boolean covers(String changed) {
        return prefix ? changed.startsWith(name) : changed.equals(name);
    }

    /** Service thread, under the hub's monitor: the state the watch starts from, at {@code revision}. */
    synchronized void started(List<Change> state, long revision) {
        initial = state;
        cursor = revision;
        waitingForStart = false;
    }

    /** Something may be ready to send: schedules the sending task. */
    void wake() {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (scheduled) {
                again = true;
                return;
            }
            scheduled = true;
        }
        hub.send(this::sendAll);
    }

    private void sendAll() {
        while (true) {
            synchronized (this) {
                again = false;
            }
            boolean more = sendSome();
            synchronized (this) {
                if (closed || !(more || again)) {
                    scheduled = false;
                    return;
                }
            }
        }
    }

    /** Sends what it can; true if more may be ready at once. */
    private boolean sendSome() {
        List<Change> state;
        long from;
        synchronized (this) {
            if (waitingForStart || closed || !sink.ready()) {
                return false;
            }
            state = initial;
            initial = null;
            from = cursor;
        }
        if (state != null) {
            sink.current(state, from);
        }
        Batch batch = hub.next(this, from, SCAN_MAX);
        if (batch == null) {
            String why = hub.fellBehind(from);
            close();
            sink.end(WatchSink.Refusal.COMPACTED, why);
            return false;
        }
        long sent = sendWhileReady(batch);
        synchronized (this) {
            cursor = sent;
        }
        return sent == batch.cursor() && sent != from;
    }

    /**
     * Sends the batch's changes while the sink takes them, and returns the cursor that leaves:
     * the batch's own when all went, else the revision just before the first change held back.
     * Readiness is asked before each message (a change, or a few with a batching sink), not once
     * per scan: a batch of a thousand changes
     * handed to a stream at once would queue them all on the connection's event loop, and the
     * answers to every other connection of that loop (a holder's echo among them) would wait
     * behind the encoding of every watch's batch. Revisions are contiguous, so the changes
     * between the last one sent and the first held back are none of this watch's.
     */
    private long sendWhileReady(Batch batch) {
        List<Change> changes = batch.changes();
        for (int i = 0; i < changes.size(); ) {
            if (!sink.ready()) {
                return changes.get(i).revision() - 1;
            }
            i += sink.changes(changes.subList(i, changes.size()));
        }
        return batch.cursor();
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        hub.remove(this);
    }
}
