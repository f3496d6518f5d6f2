package dev.tenure.client.internal;

import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.TimeSource;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every session a client has on one endpoint, carried on one AttachMany call: each session's
 * {@link KeepAliveStream} is a sub-stream of it, named by a ref. The node then keeps one stream
 * per client process instead of one per session (about 2 KB of its memory each), and the
 * keepalives of all sessions due at one instant leave as one message: they are queued and sent
 * by a flush scheduled right after them on the client's scheduler, which runs every timer due at
 * that instant first. Open, Resume and Close leave at once (with whatever is queued before them,
 * so each sub-stream's frames keep their order).
 *
 * <p>The call starts with the first sub-stream and is half-closed when the last one leaves; when it
 * breaks, every sub-stream on it is broken, and the next one to start opens a new call.
 */
public final class AttachMux {
    /** Frames per AttachFrames message: a burst of keepalives stays far below the message limit. */
    static final int FRAMES_PER_MESSAGE_MAX = 1_000;

    private final Channel channel;
    private final TimeSource time;
    private Call current; // guarded by this
    private long nextRef; // guarded by this

    public AttachMux(Channel channel, TimeSource time) {
        this.channel = channel;
        this.time = time;
    }

    public Channel channel() {
        return channel;
    }

    /** Puts {@code stream} on the current call, opening one if there is none. */
    synchronized void join(KeepAliveStream stream) {
        if (current == null) {
            Call c = new Call();
            current = c;
            // The call lives in the root context: a session opened from inside a gRPC handler
            // must outlive that handler's call. An immediate failure comes back through
            // c.onError, on this thread (the lock is reentrant) or once join returns.
            c.subs.put(stream.ref = ++nextRef, stream);
            stream.call = c;
            Context.ROOT.run(() -> TenureGrpc.newStub(channel).attachMany(c));
            return;
        }
        current.subs.put(stream.ref = ++nextRef, stream);
        stream.call = current;
    }

    /** Queues a frame of {@code stream}; {@code now} sends it (and all queued before it) at once. */
    void send(KeepAliveStream stream, AttachRequest request, boolean now) {
        Call c;
        boolean schedule;
        synchronized (this) {
            c = stream.call;
            if (c == null || c.dead || c.subs.get(stream.ref) != stream) {
                return; // the sub-stream ended or its call broke; the handler was or will be told
            }
            c.queued.add(AttachFrame.newBuilder()
                    .setRef(stream.ref)
                    .setRequest(request)
                    .build());
            if (now) {
                c.flushLocked();
                return;
            }
            schedule = !c.flushScheduled;
            c.flushScheduled = true;
        }
        if (schedule) {
            time.schedule(() -> flush(c), 0);
        }
    }

    private synchronized void flush(Call c) {
        c.flushScheduled = false;
        c.flushLocked();
    }

    /**
     * Takes {@code stream} off its call, telling the node (to it, as if the session's own stream
     * ended). The last one to leave half-closes the call.
     */
    synchronized void leave(KeepAliveStream stream) {
        Call c = stream.call;
        if (c == null || c.dead || !c.subs.remove(stream.ref, stream)) {
            return;
        }
        c.queued.add(AttachFrame.newBuilder()
                .setRef(stream.ref)
                .setDetach(AttachFrame.Detach.getDefaultInstance())
                .build());
        c.flushLocked();
        c.endIfEmptyLocked();
    }

    /** True if {@code stream}'s call has received nothing since {@code sinceNanos}. */
    synchronized boolean silentSince(KeepAliveStream stream, long sinceNanos) {
        Call c = stream.call;
        return c != null && !c.dead && c.lastHeardNanos - sinceNanos < 0;
    }

    /**
     * The connection under {@code stream}'s call is silent: every sub-stream on it is broken with
     * {@code status} (they resume elsewhere or on a new connection) and the call is cancelled.
     */
    public void abandon(KeepAliveStream stream, Status status) {
        Call c;
        synchronized (this) {
            c = stream.call;
        }
        if (c != null) {
            c.broken(status);
            c.cancelQuietly(status);
        }
    }

    /** Sub-streams on the current call (for tests). */
    synchronized int carried() {
        return current == null ? 0 : current.subs.size();
    }

    /** One AttachMany call and the sub-streams on it. */
    final class Call implements ClientResponseObserver<AttachFrames, AttachEvents> {
        final Map<Long, KeepAliveStream> subs = new TreeMap<>(); // guarded by AttachMux.this
        final List<AttachFrame> queued = new ArrayList<>(); // guarded by AttachMux.this
        boolean flushScheduled; // guarded by AttachMux.this
        boolean dead; // guarded by AttachMux.this
        ClientCallStreamObserver<AttachFrames> requests; // guarded by AttachMux.this
        /** When the call last received anything: a silent connection is one that stopped. */
        volatile long lastHeardNanos = time.nanoTime();

        @Override
        public void beforeStart(ClientCallStreamObserver<AttachFrames> requestStream) {
            synchronized (AttachMux.this) {
                requests = requestStream;
            }
        }

        /** Sends what is queued; called under the mux's lock, so messages leave one at a time, in order. */
        void flushLocked() {
            // requests is set by beforeStart, which gRPC runs inside attachMany(), under join's
            // lock: a live call always has it.
            if (dead || requests == null) {
                queued.clear();
                return;
            }
            // Taken first: a direct-executor transport may answer inside onNext, on this thread,
            // and what that answer queues must wait for the next flush, not be cleared with this one.
            List<AttachFrame> batch = new ArrayList<>(queued);
            queued.clear();
            try {
                for (int from = 0; from < batch.size(); from += FRAMES_PER_MESSAGE_MAX) {
                    requests.onNext(AttachFrames.newBuilder()
                            .addAllFrames(batch.subList(from, Math.min(batch.size(), from + FRAMES_PER_MESSAGE_MAX)))
                            .build());
                }
            } catch (RuntimeException e) {
                // The call already ended; its onError tells every sub-stream.
            }
        }

        void endIfEmptyLocked() {
            if (!subs.isEmpty() || dead) {
                return;
            }
            dead = true;
            if (current == this) {
                current = null;
            }
            try {
                requests.onCompleted();
            } catch (RuntimeException e) {
                // The call already ended.
            }
        }

        @Override
        public void onNext(AttachEvents events) {
            lastHeardNanos = time.nanoTime();
            for (AttachEvent e : events.getEventsList()) {
                KeepAliveStream s;
                synchronized (AttachMux.this) {
                    s = subs.get(e.getRef());
                    if (s == null) {
                        continue; // a sub-stream that already left: nothing it can act on
                    }
                    boolean last =
                            e.hasFailed() || (e.hasResponse() && e.getResponse().hasSessionEnded());
                    if (last) {
                        subs.remove(e.getRef());
                        endIfEmptyLocked();
                    }
                }
                // Outside the lock: the handler takes its own, and calls back into this mux.
                if (e.hasFailed()) {
                    s.failed(Status.fromCodeValue(e.getFailed().getCode())
                            .withDescription(e.getFailed().getMessage()));
                } else if (e.hasResponse()) {
                    s.received(e.getResponse());
                }
            }
        }

        @Override
        public void onError(Throwable t) {
            broken(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
            broken(Status.UNAVAILABLE.withDescription("server completed the stream without SessionEnded"));
        }

        void cancelQuietly(Status status) {
            ClientCallStreamObserver<AttachFrames> r;
            synchronized (AttachMux.this) {
                r = requests;
            }
            if (r != null) {
                try {
                    r.cancel(status.getDescription(), null);
                } catch (RuntimeException e) {
                    // already ended
                }
            }
        }

        void broken(Status status) {
            List<KeepAliveStream> carried;
            synchronized (AttachMux.this) {
                dead = true;
                if (current == this) {
                    current = null;
                }
                carried = new ArrayList<>(subs.values());
                subs.clear();
                queued.clear();
            }
            for (KeepAliveStream s : carried) {
                s.failed(status);
            }
        }
    }
}
