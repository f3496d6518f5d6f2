package dev.tenure.gateway;

import dev.tenure.core.Change;
import java.util.List;

/** Where a {@link WatchHub} sends one watch: a gRPC stream, or a test's list. */
public interface WatchSink {
    /** Why a watch was refused or ended. */
    enum Refusal {
        /** watchersMax: the node serves as many watches as it may. */
        WATCHERS_FULL,
        /** The changes after the watcher's revision are no longer kept: it must list again. */
        COMPACTED
    }

    /** Whether the sink takes more now (flow control); when it does again, it calls the watch's wake. */
    boolean ready();

    /** The current state of the watched names at {@code revision}, sent first by a watch without a revision. */
    void current(List<Change> state, long revision);

    /** The next change, in revision order. */
    void change(Change change);

    /**
     * The next changes, in revision order, as many as one message takes: sends at least the first
     * of {@code changes} (never empty) and returns how many it sent.
     */
    default int changes(List<Change> changes) {
        change(changes.get(0));
        return 1;
    }

    /** Ends the watch; nothing is sent after. */
    void end(Refusal why, String message);
}
