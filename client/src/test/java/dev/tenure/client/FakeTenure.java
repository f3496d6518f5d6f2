package dev.tenure.client;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.Checkpoint;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Grant;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LeaderRequest;
import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import dev.tenure.gateway.AttachDemux;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A scripted Tenure gateway: each test decides what it answers, holds back or breaks, and reads
 * back what it was sent. Not a model of the state machine.
 */
final class FakeTenure extends TenureGrpc.TenureImplBase {
    /** Which node (in-process server) a call arrived on; set by the harness's interceptor. */
    static final Context.Key<Integer> NODE = Context.key("node");

    enum Acks {
        AUTO,
        HOLD,
        DROP
    }

    /** ANSWER them; DROP them (a stream whose connection went silent); UNSUPPORTED: a node that predates them (and ignores them). */
    enum Echoes {
        ANSWER,
        DROP,
        UNSUPPORTED
    }

    enum Resumes {
        OPENED,
        ENDED,
        SILENT,
        /** Refused PERMISSION_DENIED, as a node whose ACL no longer lets the principal in. */
        DENIED,
        /**
         * Answered Superseded (a Resume sent earlier on a stream given up was applied after all:
         * the session is on the attachment after the one expected), the stream then ended as the
         * gateway ends it; the next Resume is OPENED.
         */
        SUPERSEDED_ONCE
    }

    volatile Acks acks = Acks.AUTO;
    volatile Resumes resumes = Resumes.OPENED;
    volatile Echoes echoes = Echoes.ANSWER;
    volatile boolean answerClose = true;
    /** Serve the Calls stream (acquire and release only); otherwise it is unimplemented, and calls go unary. */
    volatile boolean servesCalls;
    /** On Calls, answers say the session is attached (CallResponse.session_attached). */
    volatile boolean callsProve;

    final List<AttachRequest> attachLog = new CopyOnWriteArrayList<>();
    /** AttachMany calls started, and the frames in each message they carried, in order. */
    final AtomicInteger attachManyCalls = new AtomicInteger();

    final List<Integer> framesPerMessage = new CopyOnWriteArrayList<>();
    /** Echoes asked on AttachMany calls (AttachFrames.echo), whatever became of them. */
    final AtomicInteger echoesAsked = new AtomicInteger();

    final List<Stream> streams = new CopyOnWriteArrayList<>();
    private final List<Held> held = new ArrayList<>(); // guarded by this
    private final AtomicLong sessionIds = new AtomicLong(100);
    private final AtomicLong tokens = new AtomicLong(1000);
    private final Map<Long, Long> ttlBySession = new ConcurrentHashMap<>();
    private final Map<Long, Long> graceBySession = new ConcurrentHashMap<>();

    // Unary behaviour. A handler returning null parks the call (acquire only).
    final AtomicInteger unavailableNext = new AtomicInteger();
    final List<Object> requests = new CopyOnWriteArrayList<>();
    final List<Integer> requestNodes = new CopyOnWriteArrayList<>();
    final LinkedBlockingQueue<Parked> parked = new LinkedBlockingQueue<>();
    final LinkedBlockingQueue<AcquireRequest> cancelledWaits = new LinkedBlockingQueue<>();
    volatile Function<AcquireRequest, AcquireResponse> onAcquire = this::grant;
    volatile Function<ReleaseRequest, ReleaseResponse> onRelease =
            r -> ReleaseResponse.newBuilder().setCode(Code.CODE_OK).build();
    volatile Function<KvPutRequest, KvPutResponse> onPut =
            r -> KvPutResponse.newBuilder().setCode(Code.CODE_OK).build();
    volatile Function<KvDeleteRequest, KvDeleteResponse> onDelete =
            r -> KvDeleteResponse.newBuilder().setCode(Code.CODE_OK).build();
    volatile Function<RenewLeaseRequest, RenewLeaseResponse> onRenew = r -> RenewLeaseResponse.newBuilder()
            .setCode(Code.CODE_OK)
            .setRemainingMs(-1)
            .build();
    volatile Function<WriteCheckpointRequest, WriteCheckpointResponse> onCheckpoint =
            r -> WriteCheckpointResponse.newBuilder().setCode(Code.CODE_OK).build();
    volatile Function<KvGetRequest, KvGetResponse> onGet =
            r -> KvGetResponse.newBuilder().setCode(Code.CODE_NOT_FOUND).build();
    volatile Function<LockStatusRequest, LockStatusResponse> onLockStatus = r -> LockStatusResponse.newBuilder()
            .setCode(Code.CODE_OK)
            .setLock(r.getLock())
            .build();
    /** The answer to Leader; null: a node that predates it (UNIMPLEMENTED). */
    volatile @Nullable LeaderResponse leader;
    /** The node each Leader question arrived on, in order. */
    final List<Integer> leaderAsks = new CopyOnWriteArrayList<>();

    volatile Function<ServerStatusRequest, ServerStatusResponse> onServerStatus =
            r -> ServerStatusResponse.newBuilder().setNodeId(1).setHealth("ok").build();

    AcquireResponse grant(AcquireRequest r) {
        return AcquireResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setGrant(Grant.newBuilder()
                        .setLock(r.getLock())
                        .setToken(tokens.incrementAndGet())
                        .setSessionId(r.getSessionId())
                        .setPolicy(r.getPolicy())
                        .setTtlMs(ttlBySession.getOrDefault(r.getSessionId(), 3000L)))
                .build();
    }

    static AcquireResponse code(Code code) {
        return AcquireResponse.newBuilder()
                .setCode(code)
                .setMessage("scripted " + code)
                .build();
    }

    <T> List<T> requests(Class<T> type) {
        return requests.stream().filter(type::isInstance).map(type::cast).toList();
    }

    List<Long> acquireRequestIds() {
        return requests(AcquireRequest.class).stream()
                .map(AcquireRequest::getRequestId)
                .toList();
    }

    long attachCount(AttachRequest.KindCase kind) {
        return attachLog.stream().filter(r -> r.getKindCase() == kind).count();
    }

    Stream latest() {
        return streams.get(streams.size() - 1);
    }

    // ---- held keepalive acks ----

    synchronized List<Long> heldSeqs() {
        return held.stream().map(h -> h.seq).toList();
    }

    synchronized void awaitHeld(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (held.size() < count && System.nanoTime() < deadline) {
            wait(50);
        }
        if (held.size() < count) {
            throw new AssertionError("expected " + count + " held acks, have " + held.size());
        }
    }

    void releaseAck(long seq) {
        Held h;
        synchronized (this) {
            h = held.stream().filter(x -> x.seq == seq).findFirst().orElseThrow();
            held.remove(h);
        }
        h.stream.send(ack(seq));
    }

    void releaseAllAcks() {
        for (long seq : heldSeqs()) {
            releaseAck(seq);
        }
    }

    // ---- the service ----

    @Override
    public StreamObserver<AttachRequest> attach(StreamObserver<AttachResponse> out) {
        Stream s = new Stream(out, NODE.get());
        streams.add(s);
        return s;
    }

    /** As the node serves it: each session on the call is an Attach stream of its own. */
    @Override
    public StreamObserver<AttachFrames> attachMany(StreamObserver<AttachEvents> out) {
        attachManyCalls.incrementAndGet();
        AttachDemux demux = new AttachDemux(this::attach, out, Runnable::run);
        return new StreamObserver<>() {
            @Override
            public void onNext(AttachFrames frames) {
                framesPerMessage.add(frames.getFramesCount());
                if (frames.getEcho() > 0) {
                    echoesAsked.incrementAndGet();
                    switch (echoes) {
                        case ANSWER -> {}
                        // A node that predates echoes does not know the field: it goes unanswered.
                        case DROP, UNSUPPORTED ->
                            frames = frames.toBuilder().clearEcho().build();
                    }
                }
                demux.onNext(frames);
            }

            @Override
            public void onError(Throwable t) {
                demux.onError(t);
            }

            @Override
            public void onCompleted() {
                demux.onCompleted();
            }
        };
    }

    /** Acquire and release as the unary handlers answer them, each answer tagged as {@link #callsProve} says. */
    @Override
    public StreamObserver<CallRequest> calls(StreamObserver<CallResponse> out) {
        if (!servesCalls) {
            return super.calls(out);
        }
        return new StreamObserver<>() {
            @Override
            public void onNext(CallRequest c) {
                CallResponse.Builder b = CallResponse.newBuilder().setId(c.getId());
                switch (c.getKindCase()) {
                    case ACQUIRE -> {
                        requests.add(c.getAcquire());
                        b.setAcquire(onAcquire.apply(c.getAcquire()));
                    }
                    case RELEASE -> {
                        requests.add(c.getRelease());
                        b.setRelease(onRelease.apply(c.getRelease()));
                    }
                    default -> throw new AssertionError("not scripted on Calls: " + c.getKindCase());
                }
                synchronized (out) {
                    out.onNext(b.setSessionAttached(callsProve).build());
                }
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {
                synchronized (out) {
                    out.onCompleted();
                }
            }
        };
    }

    @Override
    public void acquire(AcquireRequest r, StreamObserver<AcquireResponse> out) {
        if (!admit(r, out)) {
            return;
        }
        AcquireResponse response;
        try {
            response = onAcquire.apply(r);
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        if (response == null) {
            ServerCallStreamObserver<AcquireResponse> call = (ServerCallStreamObserver<AcquireResponse>) out;
            call.setOnCancelHandler(() -> cancelledWaits.add(r));
            parked.add(new Parked(r, call));
        } else {
            reply(out, response);
        }
    }

    @Override
    public void release(ReleaseRequest r, StreamObserver<ReleaseResponse> out) {
        simple(r, out, onRelease);
    }

    @Override
    public void renewLease(RenewLeaseRequest r, StreamObserver<RenewLeaseResponse> out) {
        simple(r, out, onRenew);
    }

    @Override
    public void writeCheckpoint(WriteCheckpointRequest r, StreamObserver<WriteCheckpointResponse> out) {
        simple(r, out, onCheckpoint);
    }

    @Override
    public void kvPut(KvPutRequest r, StreamObserver<KvPutResponse> out) {
        simple(r, out, onPut);
    }

    @Override
    public void kvDelete(KvDeleteRequest r, StreamObserver<KvDeleteResponse> out) {
        simple(r, out, onDelete);
    }

    @Override
    public void kvGet(KvGetRequest r, StreamObserver<KvGetResponse> out) {
        simple(r, out, onGet);
    }

    @Override
    public void lockStatus(LockStatusRequest r, StreamObserver<LockStatusResponse> out) {
        simple(r, out, onLockStatus);
    }

    /** Lists nothing unless a test says otherwise. */
    volatile Function<ListLocksRequest, ListLocksResponse> onListLocks =
            r -> ListLocksResponse.newBuilder().setCode(Code.CODE_OK).build();

    @Override
    public void listLocks(ListLocksRequest r, StreamObserver<ListLocksResponse> out) {
        simple(r, out, onListLocks);
    }

    @Override
    public void leader(LeaderRequest r, StreamObserver<LeaderResponse> out) {
        leaderAsks.add(NODE.get());
        LeaderResponse answer = leader;
        if (answer == null) {
            super.leader(r, out);
        } else {
            reply(out, answer);
        }
    }

    @Override
    public void serverStatus(ServerStatusRequest r, StreamObserver<ServerStatusResponse> out) {
        simple(r, out, onServerStatus);
    }

    private <Q, R> void simple(Q r, StreamObserver<R> out, Function<Q, R> handler) {
        if (!admit(r, out)) {
            return;
        }
        R response;
        try {
            response = handler.apply(r); // may throw a StatusRuntimeException to fail the call
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        reply(out, response);
    }

    /** Records the request; fails it with UNAVAILABLE while injected failures remain. */
    private <R> boolean admit(Object r, StreamObserver<R> out) {
        requests.add(r);
        requestNodes.add(NODE.get());
        if (unavailableNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            out.onError(Status.UNAVAILABLE.withDescription("injected").asRuntimeException());
            return false;
        }
        return true;
    }

    private static <R> void reply(StreamObserver<R> out, R response) {
        out.onNext(response);
        out.onCompleted();
    }

    static AttachResponse ack(long seq) {
        return AttachResponse.newBuilder()
                .setAck(AttachResponse.KeepAliveAck.newBuilder().setSeq(seq))
                .build();
    }

    /** A checkpoint as the server sends it: {@code text} as UTF-8, written under {@code token}. */
    static Checkpoint checkpoint(String text, long token, long writtenAtMs) {
        return Checkpoint.newBuilder()
                .setValue(ByteString.copyFromUtf8(text))
                .setToken(token)
                .setWrittenAtMs(writtenAtMs)
                .build();
    }

    static AttachResponse leaseEnded(String lock, long token, TenureEnd end) {
        return AttachResponse.newBuilder()
                .setLeaseEnded(AttachResponse.LeaseEnded.newBuilder()
                        .setLock(lock)
                        .setToken(token)
                        .setEnd(end))
                .build();
    }

    /** An acquire the test answers later. */
    record Parked(AcquireRequest request, ServerCallStreamObserver<AcquireResponse> out) {
        void answer(AcquireResponse response) {
            reply(out, response);
        }
    }

    private record Held(Stream stream, long seq) {}

    /** One Attach stream, as the server sees it. */
    final class Stream implements StreamObserver<AttachRequest> {
        final int node;
        private final StreamObserver<AttachResponse> out;
        private boolean done; // guarded by this
        volatile long sessionId;
        /** The client's side ended: it cancelled the call, or closed the connection. */
        volatile boolean clientGone;

        Stream(StreamObserver<AttachResponse> out, Integer node) {
            this.out = out;
            this.node = node == null ? -1 : node;
        }

        @Override
        public void onNext(AttachRequest r) {
            attachLog.add(r);
            switch (r.getKindCase()) {
                case OPEN -> {
                    sessionId = sessionIds.incrementAndGet();
                    ttlBySession.put(sessionId, r.getOpen().getTtlMs());
                    graceBySession.put(sessionId, r.getOpen().getDisconnectGraceMs());
                    send(opened(sessionId, r.getOpen().getTtlMs()));
                }
                case RESUME ->
                    resume(r.getResume().getSessionId(), r.getResume().getExpectedAttachment());
                case KEEP_ALIVE -> keepAlive(r.getKeepAlive().getSeq());
                case ECHO -> {
                    switch (echoes) {
                        case ANSWER ->
                            send(AttachResponse.newBuilder()
                                    .setEchoed(AttachResponse.Echoed.newBuilder()
                                            .setSeq(r.getEcho().getSeq()))
                                    .build());
                        case DROP -> {}
                        case UNSUPPORTED -> throw new AssertionError("an echo to a node that did not offer them");
                    }
                }
                case CLOSE -> {
                    if (answerClose) {
                        end(TenureEnd.TENURE_END_RELEASED, "closed by client");
                    }
                }
                default -> throw new AssertionError("unexpected " + r);
            }
        }

        private void resume(long id, long expectedAttachment) {
            sessionId = id;
            switch (resumes) {
                case OPENED -> send(opened(id, ttlBySession.getOrDefault(id, 3000L)));
                case ENDED -> end(TenureEnd.TENURE_END_EXPIRED, "session expired");
                case SILENT -> {}
                case DENIED -> fail(Status.PERMISSION_DENIED.withDescription("principal alice is not in the ACL"));
                case SUPERSEDED_ONCE -> {
                    resumes = Resumes.OPENED;
                    send(AttachResponse.newBuilder()
                            .setSuperseded(
                                    AttachResponse.Superseded.newBuilder().setAttachment(expectedAttachment + 1))
                            .build());
                    onCompleted();
                }
            }
        }

        private void keepAlive(long seq) {
            switch (acks) {
                case AUTO -> send(ack(seq));
                case HOLD -> {
                    synchronized (FakeTenure.this) {
                        held.add(new Held(this, seq));
                        FakeTenure.this.notifyAll();
                    }
                }
                case DROP -> {}
            }
        }

        synchronized void send(AttachResponse r) {
            if (!done) {
                out.onNext(r);
            }
        }

        /** SessionEnded, then completes the stream. */
        synchronized void end(TenureEnd end, String message) {
            send(AttachResponse.newBuilder()
                    .setSessionEnded(
                            AttachResponse.SessionEnded.newBuilder().setEnd(end).setMessage(message))
                    .build());
            if (!done) {
                done = true;
                out.onCompleted();
            }
        }

        /** Breaks the stream as a failing node or network would. */
        void fail() {
            fail(Status.UNAVAILABLE.withDescription("injected break"));
        }

        synchronized void fail(Status status) {
            if (!done) {
                done = true;
                out.onError(status.asRuntimeException());
            }
        }

        @Override
        public synchronized void onError(Throwable t) {
            done = true;
            clientGone = true;
        }

        @Override
        public synchronized void onCompleted() {
            if (!done) {
                done = true;
                out.onCompleted();
            }
        }

        private AttachResponse opened(long id, long ttlMs) {
            return AttachResponse.newBuilder()
                    .setOpened(AttachResponse.Opened.newBuilder()
                            .setSessionId(id)
                            .setTtlMs(ttlMs)
                            .setDisconnectGraceMs(graceBySession.getOrDefault(id, 0L))
                            .setEchoes(echoes != Echoes.UNSUPPORTED))
                    .build();
        }
    }
}
