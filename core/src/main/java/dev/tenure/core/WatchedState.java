package dev.tenure.core;

import java.util.function.Consumer;

/** What a watch starts from: the leases, waiters and keys of the names it covers, at the current revision. */
final class WatchedState {
    private WatchedState() {}

    static void of(State state, String name, boolean prefix, Consumer<Change> sink) {
        long revision = state.revision;
        if (prefix) {
            for (LockRecord lock : state.locks.from(name, true)) {
                if (!lock.name.startsWith(name)) {
                    break;
                }
                lock(revision, lock, sink);
            }
            for (FencedKv.Entry e : state.kv.from(name)) {
                if (!e.key().startsWith(name)) {
                    break;
                }
                sink.accept(Change.key(revision, Change.Kind.KV_PUT, e, e.writtenAtMs()));
            }
            return;
        }
        LockRecord lock = state.locks.get(name);
        if (lock != null) {
            lock(revision, lock, sink);
        }
        FencedKv.Entry e = state.kv.get(name);
        if (e != null) {
            sink.accept(Change.key(revision, Change.Kind.KV_PUT, e, e.writtenAtMs()));
        }
    }

    private static void lock(long revision, LockRecord lock, Consumer<Change> sink) {
        for (LeaseRecord lease : lock.leases()) {
            sink.accept(Change.granted(revision, lock, lease, lease.grantedAtMs()));
        }
        for (Waiter w : lock.waiters()) {
            sink.accept(Change.waiting(revision, Change.Kind.QUEUED, lock, w, w.sinceMs()));
        }
    }
}
