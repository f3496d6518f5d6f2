package dev.tenure.client.internal;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import io.grpc.Channel;
import io.grpc.Status;
import org.jspecify.annotations.Nullable;

/**
 * One session's stream to one endpoint: a sub-stream of the client's {@link AttachMux} call
 * there. Sends Open / Resume / KeepAlive / Close and reports what comes back. Holds no session
 * state; the session decides what each event means and ignores events from a stream it has
 * already replaced.
 */
public final class SessionStream {
    /** What the stream saw. Called on gRPC threads, one event at a time per stream. */
    public interface Handler {
        /**
         * {@code graceMs}: the disconnect grace the node applies (0 from a node that has none).
         * {@code echoes}: the node answers echoes.
         */
        void opened(
                SessionStream stream,
                long sessionId,
                long ttlMs,
                long graceMs,
                boolean echoes,
                long attachment,
                ByteString sessionSecret);

        /** The Resume expected another attachment; the session is on {@code attachment}. The stream ends next. */
        void superseded(SessionStream stream, long attachment);

        void acked(SessionStream stream, long seq);

        /**
         * The proof the stream's call gave it ({@link #proofNanos()}) is older than its lifetime:
         * the session decides whether its leases are still valid.
         */
        void proofLapsed(SessionStream stream);

        void leaseEnded(SessionStream stream, String lock, long token, TenureEnd end);

        void sessionEnded(SessionStream stream, TenureEnd end, String message);

        /** The stream failed, or the server completed it without a SessionEnded. */
        void broken(SessionStream stream, Status status);

        /**
         * True once the session needs nothing more from {@code stream}, given up as silent: another
         * stream of it has been confirmed since, or the session is over. Until then the node may
         * still hold the session on {@code stream}'s call, and cancelling the call would start its
         * grace.
         */
        boolean movedOn(SessionStream stream);
    }

    private final int endpoint;
    private final Handler handler;
    private @Nullable AttachMux mux; // set by start
    private boolean finished; // guarded by this
    private volatile boolean sessionEnded;
    /** What {@link #proofNanos()} says while no echo has proved the stream. */
    public static final long NO_PROOF = Long.MIN_VALUE;

    // The mux's: which call carries this stream and under which ref (written under the mux's
    // lock; volatile for proofNanos, which takes none).
    volatile AttachMux.@Nullable Call call;
    long ref;
    /** The first echo of the call that proves this stream; 0 while none can. */
    volatile long provedFromEcho;
    /** Send time of the latest of the session's calls that proved it: while fresh, no echo is needed. */
    private volatile long callProvedNanos = NO_PROOF;

    /** Creates the stream without starting it, so the owner can register it first. */
    public SessionStream(int endpoint, Handler handler) {
        this.endpoint = endpoint;
        this.handler = handler;
    }

    public int endpoint() {
        return endpoint;
    }

    /**
     * Joins the endpoint's call (opening it if needed). An immediate failure is reported to the
     * handler, possibly before this returns. A stream abandoned before it started stays off.
     */
    public void start(AttachMux onto) {
        synchronized (this) {
            if (finished) {
                return;
            }
            mux = onto;
        }
        onto.join(this);
    }

    public void sendOpen(long ttlMs, String clientName, long graceMs) {
        send(
                AttachRequest.newBuilder()
                        .setOpen(AttachRequest.Open.newBuilder()
                                .setTtlMs(ttlMs)
                                .setClientName(clientName)
                                .setDisconnectGraceMs(graceMs))
                        .build(),
                true);
    }

    /** {@code expectedAttachment}: the one last confirmed (0: any, for a node that names none). */
    public void sendResume(long sessionId, long graceMs, long expectedAttachment, ByteString sessionSecret) {
        send(
                AttachRequest.newBuilder()
                        .setResume(AttachRequest.Resume.newBuilder()
                                .setSessionId(sessionId)
                                .setDisconnectGraceMs(graceMs)
                                .setExpectedAttachment(expectedAttachment)
                                .setSessionSecret(sessionSecret))
                        .build(),
                true);
    }

    /**
     * {@code batched}: queued, to leave with the keepalives of the other sessions due at the same
     * instant (a timer's); otherwise at once (a renewal someone waits for).
     */
    public void sendKeepAlive(long seq, boolean batched) {
        send(
                AttachRequest.newBuilder()
                        .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(seq))
                        .build(),
                !batched);
    }

    /** Has the call send an echo now rather than at its next tick (a fresh proof after a confirmation). */
    public void echoSoon() {
        AttachMux m = currentMux();
        if (m != null) {
            m.echoSoon(this);
        }
    }

    /**
     * True if this stream's call has heard nothing at all for {@code nanos}, judged by a check
     * that ran {@code lateNanos} after it was due: see {@link AttachMux}.
     */
    public boolean callSilentFor(long nanos, long lateNanos) {
        AttachMux m = currentMux();
        return m != null && m.silentFor(this, nanos, lateNanos);
    }

    /** The channel this stream's call runs on, or null before it started. */
    public @Nullable Channel channel() {
        AttachMux m = currentMux();
        return m == null ? null : m.channel();
    }

    /** See {@link Handler#movedOn}: asked of a stream whose call was given up as silent. */
    boolean movedOn() {
        return handler.movedOn(this);
    }

    /** Breaks this stream's whole call with {@code status}: see {@link AttachMux#abandon}. */
    public void abandonCall(Status status) {
        AttachMux m = currentMux();
        if (m != null) {
            m.abandon(this, status);
        }
    }

    /** Ends the session; {@code end} is RELEASED, or EXPIRED for a client that gave up at its horizon. */
    public void sendClose(TenureEnd end) {
        send(
                AttachRequest.newBuilder()
                        .setClose(AttachRequest.Close.newBuilder().setEndValue(WireValues.number(end)))
                        .build(),
                true);
    }

    /**
     * Nothing more will be sent (the session closed, or the try is no longer wanted): the stream
     * leaves its call, which for the node is as if the session's own stream ended.
     */
    public void leave() {
        AttachMux m;
        synchronized (this) {
            finished = true;
            m = mux;
        }
        if (m != null) {
            m.leave(this);
        }
    }

    private void send(AttachRequest request, boolean now) {
        AttachMux m;
        synchronized (this) {
            if (finished || mux == null) {
                return;
            }
            m = mux;
        }
        m.send(this, request, now);
    }

    /** A response for this stream (from the mux, outside its lock). */
    void received(AttachResponse r) {
        switch (r.getKindCase()) {
            case OPENED -> {
                AttachResponse.Opened o = r.getOpened();
                AttachMux m = currentMux();
                if (m != null) {
                    m.confirmed(this, o.getEchoes()); // a response means it started
                }
                handler.opened(
                        this,
                        o.getSessionId(),
                        o.getTtlMs(),
                        o.getDisconnectGraceMs(),
                        o.getEchoes(),
                        o.getAttachment(),
                        o.getSessionSecret());
            }
            case ACK -> handler.acked(this, r.getAck().getSeq());
            case SUPERSEDED -> handler.superseded(this, r.getSuperseded().getAttachment());
            case LEASE_ENDED -> {
                AttachResponse.LeaseEnded e = r.getLeaseEnded();
                handler.leaseEnded(this, e.getLock(), e.getToken(), WireValues.tenureEnd(e.getEndValue()));
            }
            case SESSION_ENDED -> {
                sessionEnded = true;
                AttachResponse.SessionEnded ended = r.getSessionEnded();
                handler.sessionEnded(this, WireValues.tenureEnd(ended.getEndValue()), ended.getMessage());
            }
            default -> {} // a newer server's message kind: nothing this client can act on
        }
    }

    private synchronized @Nullable AttachMux currentMux() {
        return mux;
    }

    /**
     * The send time of the latest echo answered on this stream's call since the stream's Open or
     * Resume was confirmed, or {@link #NO_PROOF}: while the session is still on this stream, the
     * node had not seen the stream end when it answered. Lock-free, for every validity check.
     */
    public long proofNanos() {
        AttachMux.Call c = call;
        long from = provedFromEcho;
        return c == null || from == 0 ? NO_PROOF : c.proofNanos(from);
    }

    /** A call of the session, sent at {@code sentNanos} while it was on this stream, proved it. */
    public void callProved(long sentNanos) {
        if (callProvedNanos == NO_PROOF || sentNanos - callProvedNanos > 0) {
            callProvedNanos = sentNanos;
        }
    }

    /** True if a call proved the session later than {@code sinceNanos}. */
    boolean callProvedSince(long sinceNanos) {
        long p = callProvedNanos;
        return p != NO_PROOF && p - sinceNanos > 0;
    }

    /** From the mux, outside its lock. */
    void proofLapsed() {
        handler.proofLapsed(this);
    }

    /** The sub-stream or its whole call failed: broken, unless the session had already ended. */
    void failed(Status status) {
        synchronized (this) {
            finished = true;
        }
        if (!sessionEnded) {
            handler.broken(this, status);
        }
    }
}
