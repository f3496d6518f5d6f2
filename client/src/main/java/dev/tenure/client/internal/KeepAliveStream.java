package dev.tenure.client.internal;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;

/**
 * One Attach stream to one endpoint: sends Open / Resume / KeepAlive / Close and reports what
 * comes back. Holds no session state; the session decides what each event means and ignores
 * events from a stream it has already replaced.
 */
public final class KeepAliveStream {
    /** What the stream saw. Called on gRPC threads, one event at a time per stream. */
    public interface Handler {
        /** {@code graceMs}: the disconnect grace the node applies (0 from a node that has none). */
        void opened(KeepAliveStream stream, long sessionId, long ttlMs, long graceMs);

        void acked(KeepAliveStream stream, long seq);

        void leaseEnded(KeepAliveStream stream, String lock, long token, TenureEnd end);

        void sessionEnded(KeepAliveStream stream, TenureEnd end, String message);

        /** The stream failed, or the server completed it without a SessionEnded. */
        void broken(KeepAliveStream stream, Status status);
    }

    private final int endpoint;
    private final Handler handler;
    private ClientCallStreamObserver<AttachRequest> requests; // guarded by this
    private boolean finished; // guarded by this
    private volatile boolean sessionEnded;

    /** Creates the stream without starting it, so the owner can register it first. */
    public KeepAliveStream(int endpoint, Handler handler) {
        this.endpoint = endpoint;
        this.handler = handler;
    }

    public int endpoint() {
        return endpoint;
    }

    /**
     * Starts the call. An immediate failure is reported to the handler, possibly before this
     * returns. The stream lives in the root context: a session opened from inside a gRPC handler
     * must outlive that handler's call.
     */
    public void start(Channel channel) {
        Context.ROOT.run(() -> TenureGrpc.newStub(channel).attach(new Responses()));
        ClientCallStreamObserver<AttachRequest> abandoned;
        synchronized (this) {
            abandoned = finished ? requests : null;
        }
        if (abandoned != null) {
            // Abandoned (or already failed) while starting; cancelling an ended call is a no-op.
            abandoned.cancel("stream abandoned while starting", null);
        }
    }

    public void sendOpen(long ttlMs, String clientName, long graceMs) {
        send(AttachRequest.newBuilder()
                .setOpen(AttachRequest.Open.newBuilder()
                        .setTtlMs(ttlMs)
                        .setClientName(clientName)
                        .setDisconnectGraceMs(graceMs))
                .build());
    }

    public void sendResume(long sessionId, long graceMs) {
        send(AttachRequest.newBuilder()
                .setResume(AttachRequest.Resume.newBuilder()
                        .setSessionId(sessionId)
                        .setDisconnectGraceMs(graceMs))
                .build());
    }

    public void sendKeepAlive(long seq) {
        send(AttachRequest.newBuilder()
                .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(seq))
                .build());
    }

    /** Ends the session; {@code end} is RELEASED, or EXPIRED for a client that gave up at its horizon. */
    public void sendClose(TenureEnd end) {
        send(AttachRequest.newBuilder()
                .setClose(AttachRequest.Close.newBuilder().setEnd(end))
                .build());
    }

    /** Half-closes: nothing more will be sent; the server completes the stream. */
    public void finish() {
        ClientCallStreamObserver<AttachRequest> r;
        synchronized (this) {
            if (finished || requests == null) {
                finished = true;
                return;
            }
            finished = true;
            r = requests;
        }
        try {
            r.onCompleted();
        } catch (RuntimeException e) {
            // The call already ended; there is nothing left to close.
        }
    }

    /** Abandons the stream (a try that is no longer wanted). */
    public void cancel(String why) {
        ClientCallStreamObserver<AttachRequest> r;
        synchronized (this) {
            finished = true;
            r = requests;
        }
        if (r != null) {
            r.cancel(why, null);
        }
    }

    // Serialized: a gRPC call's outbound side is not thread-safe, and keepalives must leave in
    // seq order.
    private synchronized void send(AttachRequest message) {
        if (finished || requests == null) {
            return;
        }
        try {
            requests.onNext(message);
        } catch (RuntimeException e) {
            // The call already ended; its onError/onCompleted tells the handler.
        }
    }

    private synchronized void bind(ClientCallStreamObserver<AttachRequest> r) {
        requests = r;
    }

    private synchronized void markFinished() {
        finished = true;
    }

    private final class Responses implements ClientResponseObserver<AttachRequest, AttachResponse> {
        @Override
        public void beforeStart(ClientCallStreamObserver<AttachRequest> requestStream) {
            bind(requestStream);
        }

        @Override
        public void onNext(AttachResponse r) {
            KeepAliveStream s = KeepAliveStream.this;
            switch (r.getKindCase()) {
                case OPENED:
                    AttachResponse.Opened o = r.getOpened();
                    handler.opened(s, o.getSessionId(), o.getTtlMs(), o.getDisconnectGraceMs());
                    break;
                case ACK:
                    handler.acked(s, r.getAck().getSeq());
                    break;
                case LEASE_ENDED:
                    AttachResponse.LeaseEnded e = r.getLeaseEnded();
                    handler.leaseEnded(s, e.getLock(), e.getToken(), e.getEnd());
                    break;
                case SESSION_ENDED:
                    sessionEnded = true;
                    handler.sessionEnded(
                            s, r.getSessionEnded().getEnd(), r.getSessionEnded().getMessage());
                    break;
                default:
                    break; // a newer server's message kind: nothing this client can act on
            }
        }

        @Override
        public void onError(Throwable t) {
            markFinished();
            if (!sessionEnded) {
                handler.broken(KeepAliveStream.this, Status.fromThrowable(t));
            }
        }

        @Override
        public void onCompleted() {
            markFinished();
            if (!sessionEnded) {
                handler.broken(
                        KeepAliveStream.this,
                        Status.UNAVAILABLE.withDescription("server completed the stream without SessionEnded"));
            }
        }
    }
}
