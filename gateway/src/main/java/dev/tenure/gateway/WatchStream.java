package dev.tenure.gateway;

import dev.tenure.api.v1.WatchBatch;
import dev.tenure.api.v1.WatchEvent;
import dev.tenure.api.v1.WatchKind;
import dev.tenure.core.Change;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One watch rpc's stream as a {@link WatchSink}: flow control from the stream's readiness (a
 * client that reads slowly holds changes in the hub's kept ring, not in this node's buffers),
 * and a cancelled stream closes its watch. {@link #oneByOne} serves Watch, an event per message;
 * {@link #batched} serves WatchBatches, the events ready at once in one message.
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

    /**
     * Events per WatchBatch at most. A message's cost (its frame, a flush, the client's decoding and
     * dispatch) is paid once for all of them, which is what lets a burst of changes reach a thousand
     * watches without taking the node's cores from its holders.
     */
    static final int EVENTS_PER_BATCH_MAX = 64;

    /** A batch takes no more events once it is this large (an event larger than it goes alone). */
    static final int BATCH_BYTES_TARGET = 16_384;

    private final ServerCallStreamObserver<?> call;
    private final WireEvents wire;
    private final int eventsPerMessage;
    private final Consumer<List<WatchEvent>> send;
    private final AtomicReference<AutoCloseable> watch = new AtomicReference<>();

    private WatchStream(
            ServerCallStreamObserver<?> call, WireEvents wire, int eventsPerMessage, Consumer<List<WatchEvent>> send) {
        this.call = call;
        this.wire = wire;
        this.eventsPerMessage = eventsPerMessage;
        this.send = send;
    }

    /** Watch's stream: each event a message of its own. */
    static WatchStream oneByOne(ServerCallStreamObserver<WatchEvent> call, WireEvents wire) {
        return new WatchStream(call, wire, 1, events -> events.forEach(call::onNext));
    }

    /** WatchBatches' stream: up to {@link #EVENTS_PER_BATCH_MAX} events a message. */
    static WatchStream batched(ServerCallStreamObserver<WatchBatch> call, WireEvents wire) {
        return new WatchStream(
                call,
                wire,
                EVENTS_PER_BATCH_MAX,
                events ->
                        call.onNext(WatchBatch.newBuilder().addAllEvents(events).build()));
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
        List<WatchEvent> events = new ArrayList<>(state.size() + 1);
        for (Change c : state) {
            events.add(WatchMapping.toWire(c).setCurrent(true).build());
        }
        events.add(WatchEvent.newBuilder()
                .setKind(WatchKind.WATCH_KIND_SYNCED)
                .setRevision(revision)
                .build());
        for (int i = 0; i < events.size(); ) {
            int n = messageLength(events.subList(i, events.size()));
            send.accept(events.subList(i, i + n));
            i += n;
        }
    }

    @Override
    public void change(Change change) {
        send.accept(List.of(wire.of(change)));
    }

    @Override
    public int changes(List<Change> changes) {
        int n = Math.min(changes.size(), eventsPerMessage);
        List<WatchEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            events.add(wire.of(changes.get(i)));
        }
        int taken = messageLength(events);
        send.accept(events.subList(0, taken));
        return taken;
    }

    /** How many of {@code events}, at least one, the next message takes. */
    private int messageLength(List<WatchEvent> events) {
        int n = 0;
        int bytes = 0;
        for (WatchEvent e : events) {
            if (n == eventsPerMessage || bytes >= BATCH_BYTES_TARGET) {
                break;
            }
            bytes += e.getSerializedSize();
            n++;
        }
        return n;
    }

    @Override
    public void end(Refusal why, String message) {
        if (why == Refusal.WATCHERS_FULL) {
            call.onError(Status.RESOURCE_EXHAUSTED.withDescription(message).asRuntimeException());
            return;
        }
        send.accept(List.of(WatchEvent.newBuilder()
                .setKind(WatchKind.WATCH_KIND_ENDED_WATCH)
                .setCodeValue(dev.tenure.api.v1.Code.CODE_REVISION_COMPACTED_VALUE)
                .setMessage(message)
                .build()));
        call.onCompleted();
    }
}
