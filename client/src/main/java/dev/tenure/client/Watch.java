package dev.tenure.client;

import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WatchBatch;
import dev.tenure.api.v1.WatchKind;
import dev.tenure.client.internal.Backoff;
import dev.tenure.client.internal.WireValues;
import dev.tenure.client.spi.TimeSource;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * A running watch ({@link TenureClient#watch}): close it to stop. It survives a broken connection
 * and a node's failure by itself: it watches again, at the next node, after the last revision it
 * delivered, so its listener sees each change once, in revision order. A node's watch serves that
 * node's replica (sequentially consistent, not linearizable): after a failover the next node may
 * be behind the last; it then sends nothing until it has caught up.
 *
 * <p>It ends for good only on a refusal that watching again cannot cure ({@link
 * WatchListener#onEnded}): the revision is no longer kept (REVISION_COMPACTED: list again),
 * denied, or invalid. A watch broken before the current state was delivered whole starts over
 * with the current state.
 */
public final class Watch implements AutoCloseable {
    /** Listener calls a watch makes on a shared delivery thread before it lets the others run. */
    private static final int CALLS_PER_TURN = 256;

    private final ClientContext ctx;
    private final WatchRequest request;
    private final WatchListener listener;
    private final TimeSource time;
    private final Executor delivery;
    // Guarded by this.
    private long lastRevision = -1;
    private boolean closed;
    private int failures;
    private Context.@Nullable CancellableContext call;
    private final ArrayDeque<Runnable> toListener = new ArrayDeque<>();
    /** The node answered WatchBatches UNIMPLEMENTED: watch with Watch, an event per message. */
    private boolean oneByOne;

    private boolean delivering;

    Watch(ClientContext ctx, WatchRequest request, WatchListener listener) {
        this.ctx = ctx;
        this.request = request;
        this.listener = listener;
        this.time = ctx.time;
        this.delivery = WatchThreads.of(ctx.time);
        request.revision().ifPresent(r -> lastRevision = r);
        start();
    }

    /** The revision of the last change delivered (or the state synced); -1 before any. */
    public synchronized long lastRevision() {
        return lastRevision;
    }

    /** Stops the watch; idempotent. Nothing is delivered after it returns, except a call already running. */
    @Override
    public void close() {
        Context.CancellableContext c;
        synchronized (this) {
            closed = true;
            c = call;
            call = null;
        }
        if (c != null) {
            c.cancel(null);
        }
    }

    private void start() {
        int index = ctx.endpoints.preferred();
        dev.tenure.api.v1.WatchRequest.Builder wire = dev.tenure.api.v1.WatchRequest.newBuilder();
        if (request.isPrefix()) {
            wire.setPrefix(request.nameOrPrefix());
        } else {
            wire.setName(request.nameOrPrefix());
        }
        Context.CancellableContext c = Context.current().withCancellation();
        synchronized (this) {
            if (closed) {
                return;
            }
            if (lastRevision >= 0) {
                wire.setFromRevision(lastRevision);
            }
            call = c;
        }
        boolean batches;
        synchronized (this) {
            batches = !oneByOne;
        }
        Observer observer = new Observer(index, c, batches);
        try {
            c.run(() -> {
                // Decoded off the event loops, on the watch threads: the channel's own executor is
                // its event loop (directExecutor), which reads the sessions' echo answers too, and a
                // burst's events decoded there would hold those answers behind them.
                TenureGrpc.TenureStub stub =
                        TenureGrpc.newStub(ctx.endpoints.channel(index)).withExecutor(delivery);
                if (batches) {
                    stub.watchBatches(wire.build(), observer.batches());
                } else {
                    stub.watch(wire.build(), observer);
                }
            });
        } catch (IllegalStateException closedClient) {
            close();
        }
    }

    private final class Observer implements StreamObserver<dev.tenure.api.v1.WatchEvent> {
        private final int index;
        private final Context.CancellableContext context;
        private final boolean batched;

        Observer(int index, Context.CancellableContext context, boolean batched) {
            this.index = index;
            this.context = context;
            this.batched = batched;
        }

        /** The same observer for WatchBatches: each batch's events in order. */
        StreamObserver<WatchBatch> batches() {
            return new StreamObserver<>() {
                @Override
                public void onNext(WatchBatch batch) {
                    List<Runnable> calls = new ArrayList<>(batch.getEventsCount());
                    for (dev.tenure.api.v1.WatchEvent e : batch.getEventsList()) {
                        accept(e, calls);
                    }
                    deliver(calls);
                }

                @Override
                public void onError(Throwable t) {
                    Observer.this.onError(t);
                }

                @Override
                public void onCompleted() {
                    Observer.this.onCompleted();
                }
            };
        }

        @Override
        public void onNext(dev.tenure.api.v1.WatchEvent e) {
            List<Runnable> calls = new ArrayList<>(1);
            accept(e, calls);
            deliver(calls);
        }

        /** Takes one event; adds the listener's call for it, if any, to {@code calls}. */
        private void accept(dev.tenure.api.v1.WatchEvent e, List<Runnable> calls) {
            switch (e.getKind()) {
                case WATCH_KIND_SYNCED -> {
                    synchronized (Watch.this) {
                        lastRevision = e.getRevision();
                        failures = 0;
                    }
                    calls.add(() -> listener.onSynced(e.getRevision()));
                }
                case WATCH_KIND_ENDED_WATCH -> {
                    deliver(calls);
                    calls.clear();
                    end(new TenureException(TenureException.Code.REVISION_COMPACTED, e.getMessage()));
                }
                default -> {
                    WatchEvent event = toApi(e);
                    if (!e.getCurrent()) {
                        synchronized (Watch.this) {
                            if (e.getRevision() <= lastRevision) {
                                return; // delivered before a reconnect: each change once
                            }
                            lastRevision = e.getRevision();
                            failures = 0;
                        }
                    }
                    calls.add(() -> listener.onEvent(event));
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            Status status = Status.fromThrowable(t);
            switch (status.getCode()) {
                case PERMISSION_DENIED, UNAUTHENTICATED ->
                    end(new TenureException(TenureException.Code.DENIED, status.getDescription()));
                case INVALID_ARGUMENT ->
                    end(new TenureException(TenureException.Code.INVALID_REQUEST, status.getDescription()));
                case UNIMPLEMENTED -> {
                    if (batched) {
                        // A node older than WatchBatches: it serves Watch, an event per message.
                        synchronized (Watch.this) {
                            oneByOne = true;
                        }
                    }
                    again();
                }
                default -> again();
            }
        }

        @Override
        public void onCompleted() {
            again();
        }

        /** Broken, or the node went away: watch again at the next node, after the last revision. */
        private void again() {
            long delay;
            synchronized (Watch.this) {
                if (closed || call != context) {
                    return;
                }
                call = null;
                failures++;
                delay = Backoff.delayNanos(failures, ctx.endpoints.size(), time.random());
            }
            ctx.endpoints.failed(index);
            var unused = time.schedule(Watch.this::start, delay);
        }

        private void end(TenureException cause) {
            synchronized (Watch.this) {
                if (closed) {
                    return;
                }
                closed = true;
                call = null;
            }
            context.cancel(null);
            deliver(List.of(() -> listener.onEnded(cause)));
        }
    }

    /**
     * Runs listener calls one at a time, in order, off the transport's threads. A message's calls
     * are handed over together: a hand-off to another thread per event cost more than the event.
     */
    private void deliver(List<Runnable> tasks) {
        if (tasks.isEmpty()) {
            return;
        }
        synchronized (this) {
            toListener.addAll(tasks);
            if (delivering) {
                return;
            }
            delivering = true;
        }
        delivery.execute(this::drain);
    }

    /**
     * Runs the queued listener calls; after {@link #CALLS_PER_TURN} it yields its thread to the
     * other watches' deliveries and queues itself again, so that one busy watch does not hold a
     * thread that the others share.
     */
    private void drain() {
        for (int done = 0; ; done++) {
            Runnable next;
            synchronized (this) {
                if (done == CALLS_PER_TURN && !toListener.isEmpty()) {
                    delivery.execute(this::drain);
                    return;
                }
                next = toListener.pollFirst();
                if (next == null) {
                    delivering = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // The listener's own failure ends nothing: the next event still comes.
            }
        }
    }

    static WatchEvent toApi(dev.tenure.api.v1.WatchEvent e) {
        return new WatchEvent(
                e.getRevision(),
                kind(e.getKind()),
                e.getName(),
                e.getSessionId(),
                e.getToken(),
                LossReason.ofPrevious(WireValues.tenureEnd(e.getEndValue())),
                e.getPreviousToken(),
                e.getShared(),
                e.getPermits(),
                e.getVersion(),
                Instant.ofEpochMilli(e.getAtMs()),
                e.getCurrent(),
                e.getValue().toByteArray());
    }

    private static WatchEvent.Kind kind(WatchKind kind) {
        return switch (kind) {
            case WATCH_KIND_GRANTED -> WatchEvent.Kind.GRANTED;
            case WATCH_KIND_ENDED -> WatchEvent.Kind.ENDED;
            case WATCH_KIND_QUEUED -> WatchEvent.Kind.QUEUED;
            case WATCH_KIND_LEFT -> WatchEvent.Kind.LEFT;
            case WATCH_KIND_KV_PUT -> WatchEvent.Kind.KV_PUT;
            case WATCH_KIND_KV_DELETED -> WatchEvent.Kind.KV_DELETED;
            case WATCH_KIND_PROCLAIMED -> WatchEvent.Kind.PROCLAIMED;
            case WATCH_KIND_DOWNGRADED -> WatchEvent.Kind.DOWNGRADED;
            default -> throw new StatusRuntimeException(Status.INTERNAL.withDescription("unknown watch kind " + kind));
        };
    }
}
