package dev.tenure.gateway;

import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Serves an AttachMany stream with an Attach implementation: each ref gets an Attach handler of
 * its own, which sees exactly what it would on its own stream (its requests in order; the client
 * ending the sub-stream, by a Detach or by ending the whole stream, as its stream ending), and
 * whose responses go out tagged with the ref. So a session behaves the same on either rpc.
 *
 * <p>Responses are queued and sent by a flush on {@code flushes}, all that is queued in one
 * message (at most {@link #EVENTS_PER_MESSAGE_MAX} events): the acknowledgements of a keepalive
 * batch, completed together, leave together. With a direct executor every response leaves at
 * once.
 *
 * <p>Handlers are called without this object's lock held: they take locks of their own and call
 * back into it.
 */
public final class AttachDemux implements StreamObserver<AttachFrames> {
    /** Sub-streams one AttachMany stream may carry at once (the node's own session limit is 100,000). */
    public static final int SUB_STREAMS_MAX = 100_000;
    /** Events per AttachEvents message, so a burst of acks stays far below the message size limit. */
    public static final int EVENTS_PER_MESSAGE_MAX = 1_000;

    private final Function<StreamObserver<AttachResponse>, StreamObserver<AttachRequest>> attach;
    private final StreamObserver<AttachEvents> out;
    private final Executor flushes;
    private final Object lock = new Object();
    private final Map<Long, Sub> subs = new TreeMap<>(); // guarded by lock
    private final List<AttachEvent> queued = new ArrayList<>(); // guarded by lock
    private boolean flushScheduled; // guarded by lock
    private boolean done; // guarded by lock: the stream ended, on either side
    private long echoToAnswer; // guarded by lock: the latest echo asked and not yet answered, or 0

    /**
     * @param attach makes the handler of one sub-stream, given where its responses go (an Attach
     *     service method)
     */
    public AttachDemux(
            Function<StreamObserver<AttachResponse>, StreamObserver<AttachRequest>> attach,
            StreamObserver<AttachEvents> out,
            Executor flushes) {
        this.attach = attach;
        this.out = out;
        this.flushes = flushes;
    }

    @Override
    public void onNext(AttachFrames frames) {
        for (AttachFrame f : frames.getFramesList()) {
            if (f.getRef() <= 0) {
                fail(Status.INVALID_ARGUMENT.withDescription("AttachFrame.ref must be > 0, was " + f.getRef()));
                return;
            }
            switch (f.getKindCase()) {
                case REQUEST -> request(f.getRef(), f.getRequest());
                case DETACH -> detach(f.getRef());
                case KIND_NOT_SET -> {
                    fail(Status.INVALID_ARGUMENT.withDescription("empty AttachFrame for ref " + f.getRef()));
                    return;
                }
            }
        }
        if (frames.getEcho() > 0) {
            echo(frames.getEcho());
        }
    }

    /**
     * Answers an echo after what this message's frames made the handlers send. It needs no look at
     * the sub-streams: a handler starts its session's grace only when its sub-stream ends, which is
     * the client's own Detach, the whole stream's end (after which nothing is answered), or an
     * ending the handler sent first, which is queued ahead of this answer.
     *
     * <p>Sent from here, with what is queued, not by the scheduled flush: a node busy enough to
     * delay its flushes must not look to the client like a silent connection.
     */
    private void echo(long seq) {
        synchronized (lock) {
            if (done) {
                return;
            }
            echoToAnswer = Math.max(echoToAnswer, seq);
            flushLocked();
        }
    }

    private void request(long ref, AttachRequest request) {
        Sub sub;
        boolean refused = false;
        synchronized (lock) {
            if (done) {
                return;
            }
            sub = subs.get(ref);
            if (sub == null && subs.size() >= SUB_STREAMS_MAX) {
                refused = queueLocked(failed(
                        ref,
                        Status.RESOURCE_EXHAUSTED.withDescription(
                                "an AttachMany stream carries at most " + SUB_STREAMS_MAX + " sessions")));
            } else if (sub == null) {
                sub = new Sub(ref);
                subs.put(ref, sub);
            }
        }
        if (sub == null) {
            if (refused) {
                scheduleFlush();
            }
            return;
        }
        if (sub.handler == null) {
            sub.handler = attach.apply(sub);
        }
        sub.handler.onNext(request);
    }

    /** The client is done with the ref: to its handler, its stream half-closed. */
    private void detach(long ref) {
        Sub sub;
        synchronized (lock) {
            sub = subs.remove(ref);
        }
        if (sub != null) {
            sub.ended = true;
            sub.handler().onCompleted();
        }
    }

    /** The client cancelled the stream, or its connection broke: every sub-stream broke. */
    @Override
    public void onError(Throwable t) {
        for (Sub sub : endAll()) {
            sub.handler().onError(t);
        }
    }

    /** The client half-closed the whole stream: every sub-stream half-closed. */
    @Override
    public void onCompleted() {
        for (Sub sub : endAll()) {
            sub.handler().onCompleted();
        }
        try {
            out.onCompleted();
        } catch (RuntimeException alreadyCancelled) {
            // nothing left to complete
        }
    }

    private void fail(Status status) {
        List<Sub> ended = endAll();
        try {
            out.onError(status.asRuntimeException());
        } catch (RuntimeException alreadyCancelled) {
            // nothing left to fail
        }
        for (Sub sub : ended) {
            sub.handler().onError(status.asRuntimeException());
        }
    }

    private List<Sub> endAll() {
        synchronized (lock) {
            done = true;
            queued.clear();
            List<Sub> all = new ArrayList<>(subs.values());
            subs.clear();
            for (Sub sub : all) {
                sub.ended = true;
            }
            return all;
        }
    }

    private void queue(AttachEvent event) {
        synchronized (lock) {
            if (!queueLocked(event)) {
                return;
            }
        }
        scheduleFlush();
    }

    /** Queues; true if a flush must be scheduled. */
    private boolean queueLocked(AttachEvent event) {
        if (done) {
            return false;
        }
        queued.add(event);
        if (flushScheduled) {
            return false;
        }
        flushScheduled = true;
        return true;
    }

    private void scheduleFlush() {
        flushes.execute(this::flush);
    }

    private void flush() {
        synchronized (lock) {
            flushLocked();
        }
    }

    private void flushLocked() {
        flushScheduled = false;
        // Sent under the lock: a call's outbound side takes one message at a time, in order.
        // The echo's answer rides on the last message, after every event queued before it.
        int from = 0;
        do {
            int to = Math.min(queued.size(), from + EVENTS_PER_MESSAGE_MAX);
            AttachEvents.Builder message = AttachEvents.newBuilder().addAllEvents(queued.subList(from, to));
            if (to == queued.size()) {
                message.setEchoed(echoToAnswer);
                echoToAnswer = 0;
            }
            if (done || (message.getEventsCount() == 0 && message.getEchoed() == 0)) {
                break;
            }
            try {
                out.onNext(message.build());
            } catch (RuntimeException cancelled) {
                done = true; // the call is gone; its onError tells the handlers
            }
            from = to;
        } while (from < queued.size());
        queued.clear();
    }

    private static AttachEvent failed(long ref, Status status) {
        return AttachEvent.newBuilder()
                .setRef(ref)
                .setFailed(AttachEvent.Failed.newBuilder()
                        .setCode(status.getCode().value())
                        .setMessage(status.getDescription() == null ? "" : status.getDescription()))
                .build();
    }

    /** One ref's sub-stream: the response side its handler writes to. */
    private final class Sub implements StreamObserver<AttachResponse> {
        private final long ref;
        // Made by the stream's inbound side, which gRPC runs one message at a time, before the
        // sub-stream's first request; only that side uses it.
        private @Nullable StreamObserver<AttachRequest> handler;
        private volatile boolean ended; // no more responses go out

        Sub(long ref) {
            this.ref = ref;
        }

        /** Its handler, once its first request made it: a sub-stream is ended only after that. */
        StreamObserver<AttachRequest> handler() {
            // request() makes the handler on the inbound side right after it adds this sub-stream,
            // before gRPC delivers that side's next message (a detach, onError, onCompleted).
            return Objects.requireNonNull(handler, "a sub-stream ends only after its first request");
        }

        @Override
        public void onNext(AttachResponse response) {
            if (!ended) {
                queue(AttachEvent.newBuilder().setRef(ref).setResponse(response).build());
            }
        }

        /** The handler ended the sub-stream without an error (after SessionEnded, or a detach). */
        @Override
        public void onCompleted() {
            end();
        }

        @Override
        public void onError(Throwable t) {
            if (!ended) {
                queue(failed(ref, Status.fromThrowable(t)));
            }
            end();
        }

        private void end() {
            ended = true;
            synchronized (lock) {
                subs.remove(ref, this);
            }
        }
    }
}
