package dev.tenure.gateway;

import dev.tenure.api.v1.WatchEvent;
import dev.tenure.api.v1.WatchKind;
import dev.tenure.core.Change;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One Watch rpc's stream as a {@link WatchSink}: flow control from the stream's readiness (a
 * client that reads slowly holds changes in the hub's kept ring, not in this node's buffers),
 * and a cancelled stream closes its watch.
 */
final class WatchStream implements WatchSink {
    /**
     * Bytes a watch stream may have queued toward its client before it stops taking changes (about
     * forty events), against gRPC's default of 32 KiB. What a watch has queued is encoded and
     * written on its connection's event loop, which serves other connections too: a thousand
     * watches at 32 KiB each put seconds of writing ahead of a holder's echo answer there, at 4 KiB
     * each tens of milliseconds. A watch that stops taking changes keeps its place
     * in the node's kept changes, not in buffers.
     */
    static final int READY_THRESHOLD_BYTES = 4_096;

    private final ServerCallStreamObserver<WatchEvent> call;
    private final AtomicReference<AutoCloseable> watch = new AtomicReference<>();

    WatchStream(ServerCallStreamObserver<WatchEvent> call) {
        this.call = call;
    }

    /** Called on the rpc's own thread, before the watch starts. */
    void start(WatchHub hub, String name, boolean prefix, long fromRevision) {
        call.setOnReadyThreshold(READY_THRESHOLD_BYTES);
        call.setOnCancelHandler(this::close);
        call.setOnReadyHandler(() -> {
            if (watch.get() instanceof Watcher w) {
                w.wake();
            }
        });
        AutoCloseable w = hub.watch(name, prefix, fromRevision, this);
        if (w != null) {
            watch.set(w);
            if (call.isCancelled()) {
                close();
            }
        }
    }

    private void close() {
        AutoCloseable w = watch.getAndSet(null);
        if (w instanceof Watcher x) {
            x.close();
        }
    }

    @Override
    public boolean ready() {
        return call.isReady() && !call.isCancelled();
    }

    @Override
    public void current(List<Change> state, long revision) {
        for (Change c : state) {
            call.onNext(WatchMapping.toWire(c).setCurrent(true).build());
        }
        call.onNext(WatchEvent.newBuilder()
                .setKind(WatchKind.WATCH_KIND_SYNCED)
                .setRevision(revision)
                .build());
    }

    @Override
    public void change(Change change) {
        call.onNext(WatchMapping.toWire(change).build());
    }

    @Override
    public void end(Refusal why, String message) {
        if (why == Refusal.WATCHERS_FULL) {
            call.onError(Status.RESOURCE_EXHAUSTED.withDescription(message).asRuntimeException());
            return;
        }
        call.onNext(WatchEvent.newBuilder()
                .setKind(WatchKind.WATCH_KIND_ENDED_WATCH)
                .setCodeValue(dev.tenure.api.v1.Code.CODE_REVISION_COMPACTED_VALUE)
                .setMessage(message)
                .build());
        call.onCompleted();
    }
}
