package dev.tenure.sim;

import dev.tenure.api.AttachDemux;
import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A node's handling of one AttachMany stream, after the server's {@link AttachDemux}: each ref
 * gets an {@link AttachHandler} of its own, which sees exactly what it would on its own Attach
 * stream, and whose responses go out tagged with the ref. A Detach is that sub-stream's client
 * half-closing; the client half-closing or cancelling the whole call ends every sub-stream the
 * same way, in ref order. A handler ending its sub-stream with an error sends a Failed event for
 * the ref; one completing it sends nothing (after SessionEnded the client needs nothing more).
 * Either way the ref is free again: a request on it starts a new sub-stream.
 *
 * <p>Each event leaves as an AttachEvents message of its own. The server packs the events completed
 * together into one message; that changes how many messages carry them, not their order.
 */
final class AttachManyHandler {
    private final Gateway gateway;
    private final ServerCall call;
    private final TreeMap<Long, SubStream> subs = new TreeMap<>();
    /** The call ended, on either side: no sub-stream starts any more. */
    private boolean done;

    AttachManyHandler(Gateway gateway, ServerCall call) {
        this.gateway = gateway;
        this.call = call;
    }

    /** Frames in order; a malformed one fails the whole call, after those before it were handled. */
    void onNext(AttachFrames frames) {
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
    }

    private void request(long ref, AttachRequest request) {
        if (done) {
            return;
        }
        SubStream sub = subs.get(ref);
        if (sub == null) {
            if (request.hasOpen() || request.hasResume()) {
                // A stale frame for a ref that ended starts a sub-stream too; its failure is traced.
                gateway.trace("sees " + who() + " start " + call.client.name() + " r" + ref + " with "
                        + Describe.attachRequest(request));
            }
            if (subs.size() >= AttachDemux.SUB_STREAMS_MAX) {
                refuse(ref);
                return;
            }
            sub = new SubStream(ref);
            subs.put(ref, sub);
            sub.handler = new AttachHandler(gateway, sub);
        }
        sub.handler.onNext(request);
    }

    private void refuse(long ref) {
        Status status = Status.RESOURCE_EXHAUSTED.withDescription(
                "an AttachMany stream carries at most " + AttachDemux.SUB_STREAMS_MAX + " sessions");
        gateway.trace("ends " + call.client.name() + " r" + ref + ": " + Describe.status(status));
        call.send(event(failed(ref, status)));
    }

    /** The client is done with the ref: to its handler, its stream half-closed. */
    private void detach(long ref) {
        SubStream sub = subs.remove(ref);
        if (sub != null) {
            gateway.trace("sees " + who() + " detach " + call.client.name() + " r" + ref);
            sub.ended = true;
            sub.handler.clientEnded(true);
        }
    }

    /**
     * The client half-closed the whole call ({@code halfClosed}: every sub-stream half-closed, and
     * the call completes), or cancelled it or lost its connection (every sub-stream broke).
     */
    void clientEnded(boolean halfClosed) {
        for (SubStream sub : endAll()) {
            sub.handler.clientEnded(halfClosed);
        }
        if (halfClosed) {
            call.close(Status.OK);
        }
    }

    /** A malformed frame: the call fails, and to each handler its stream broke. */
    private void fail(Status status) {
        gateway.trace("fails " + call.client.name() + ": " + Describe.status(status));
        List<SubStream> ended = endAll();
        call.close(status);
        for (SubStream sub : ended) {
            sub.handler.clientEnded(false);
        }
    }

    /** Ends every sub-stream at once; they are returned in ref order. */
    private List<SubStream> endAll() {
        done = true;
        List<SubStream> all = new ArrayList<>(subs.values());
        subs.clear();
        for (SubStream sub : all) {
            sub.ended = true;
        }
        return all;
    }

    private String who() {
        return call.client.process.name();
    }

    private static AttachEvents event(AttachEvent event) {
        return AttachEvents.newBuilder().addEvents(event).build();
    }

    private static AttachEvent failed(long ref, Status status) {
        return AttachEvent.newBuilder()
                .setRef(ref)
                .setFailed(AttachEvent.Failed.newBuilder()
                        .setCode(status.getCode().value())
                        .setMessage(status.getDescription() == null ? "" : status.getDescription()))
                .build();
    }

    /** One ref's sub-stream: where its handler writes. */
    private final class SubStream implements AttachOut {
        private final long ref;
        private AttachHandler handler;
        /** No more responses go out: the handler ended it, or the client did. */
        private boolean ended;

        SubStream(long ref) {
            this.ref = ref;
        }

        @Override
        public void send(AttachResponse response) {
            if (!ended) {
                call.send(event(AttachEvent.newBuilder()
                        .setRef(ref)
                        .setResponse(response)
                        .build()));
            }
        }

        /** An error becomes a Failed event for the ref; OK (after SessionEnded, or a detach) nothing. */
        @Override
        public void close(Status status) {
            if (!ended) {
                gateway.trace("ends " + call.client.name() + " r" + ref + ": " + Describe.status(status));
                if (!status.isOk()) {
                    call.send(event(failed(ref, status)));
                }
            }
            ended = true;
            subs.remove(ref, this);
        }

        @Override
        public boolean done() {
            return ended || call.done();
        }
    }
}
