package dev.tenure.client.internal;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.google.common.util.concurrent.ListenableFuture;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.spi.TimeSource;
import io.grpc.CallOptions;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link CallMux} against an in-process node: calls carried as frames of one Calls stream and their
 * answers, failures, deadlines and cancellations, a broken stream, close, the unary fallback for a
 * node without Calls, and methods that are never carried.
 */
class CallMuxTest {

    private Server server;
    private ManagedChannel channel;
    private CallMux mux;

    @AfterEach
    void tearDown() throws InterruptedException {
        if (mux != null) {
            mux.close();
        }
        channel.shutdownNow().awaitTermination(5, SECONDS);
        server.shutdownNow().awaitTermination(5, SECONDS);
    }

    @Test
    void carriesAnAcquireAsAFrameAndCompletesItWithItsAnswer() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> call = acquire("a", CallOptions.DEFAULT);

        CallRequest frame = node.frame();
        assertThat(frame.getId()).isPositive();
        assertThat(frame.getKindCase()).isEqualTo(CallRequest.KindCase.ACQUIRE);
        assertThat(frame.getAcquire()).isEqualTo(request("a"));
        assertThat(mux.carrying()).isTrue();

        node.answer(frame.getId(), "granted a");
        assertThat(call.get(5, SECONDS)).isEqualTo(response("granted a"));
        assertThat(node.unaryAcquires).hasValue(0);
        assertThat(mux.carrying()).isTrue();
    }

    @Test
    void concurrentCallsGetDistinctIdsAndTheirOwnAnswersInAnyOrder() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> first = acquire("a", CallOptions.DEFAULT);
        ListenableFuture<AcquireResponse> second = acquire("b", CallOptions.DEFAULT);
        CallRequest one = node.frame();
        CallRequest two = node.frame();
        assertThat(one.getId()).isPositive().isNotEqualTo(two.getId());
        assertThat(two.getId()).isPositive();
        boolean oneIsForA = one.getAcquire().getLock().equals("a");
        CallRequest forA = oneIsForA ? one : two;
        CallRequest forB = oneIsForA ? two : one;
        assertThat(forB.getAcquire().getLock()).isEqualTo("b");

        node.answer(forB.getId(), "for b");
        assertThat(second.get(5, SECONDS)).isEqualTo(response("for b"));
        assertThat(first).isNotDone();
        node.answer(forA.getId(), "for a");
        assertThat(first.get(5, SECONDS)).isEqualTo(response("for a"));
        assertThat(node.unaryAcquires).hasValue(0);
    }

    @Test
    void aFailedAnswerFailsTheCallWithItsStatus() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> call = acquire("a", CallOptions.DEFAULT);
        long id = node.frame().getId();

        node.send(CallResponse.newBuilder()
                .setId(id)
                .setFailed(CallResponse.Failed.newBuilder()
                        .setCode(Status.Code.INVALID_ARGUMENT.value())
                        .setMessage("x"))
                .build());

        Status status = failure(call);
        assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).isEqualTo("x");
    }

    @Test
    void aCallRefusedForTheStreamsLimitGoesUnaryAndTheStreamKeepsUnderTheNodesLimit() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> refused = acquire("a", CallOptions.DEFAULT);
        node.send(CallResponse.newBuilder()
                .setId(node.frame().getId())
                .setFailed(CallResponse.Failed.newBuilder()
                        .setCode(Status.Code.RESOURCE_EXHAUSTED.value())
                        .setMessage("callsInFlightMax: a Calls stream carries at most 1 calls in flight")
                        .setCallsInFlightMax(1))
                .build());
        // Refused before anything was done: the caller gets the answer of the same call made unary.
        assertThat(refused.get(5, SECONDS)).isEqualTo(response("unary a"));
        assertThat(node.unaryAcquires).hasValue(1);

        // One call on the stream now fills it, as the node said; the next goes unary at once.
        ListenableFuture<AcquireResponse> carried = acquire("b", CallOptions.DEFAULT);
        CallRequest frame = node.frame();
        assertThat(acquire("c", CallOptions.DEFAULT).get(5, SECONDS)).isEqualTo(response("unary c"));
        assertThat(node.unaryAcquires).hasValue(2);
        node.answer(frame.getId(), "granted b");
        assertThat(carried.get(5, SECONDS)).isEqualTo(response("granted b"));
        assertThat(mux.carrying()).isTrue();

        // With the stream free again, calls are carried.
        ListenableFuture<AcquireResponse> next = acquire("d", CallOptions.DEFAULT);
        node.answer(node.frame().getId(), "granted d");
        assertThat(next.get(5, SECONDS)).isEqualTo(response("granted d"));
        assertThat(node.unaryAcquires).hasValue(2);
    }

    @Test
    void aNodeWithoutCallsGetsUnaryCalls() throws Exception {
        Fake node = start(new Fake());

        assertThat(acquire("a", CallOptions.DEFAULT).get(5, SECONDS)).isEqualTo(response("unary a"));
        assertThat(node.unaryAcquires).hasValue(1);
        assertThat(mux.carrying()).isFalse();

        assertThat(acquire("b", CallOptions.DEFAULT).get(5, SECONDS)).isEqualTo(response("unary b"));
        assertThat(node.unaryAcquires).hasValue(2);
        assertThat(mux.carrying()).isFalse();
    }

    @Test
    void aPassedDeadlineFailsTheCallAndSendsACancelFrame() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> call = acquire("a", CallOptions.DEFAULT.withDeadlineAfter(200, MILLISECONDS));
        long id = node.frame().getId();

        assertThat(failure(call).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertCancelFrame(node.frame(), id);
    }

    @Test
    void aCancelledContextCancelsTheCallAndSendsACancelFrame() throws Exception {
        Scripted node = start(new Scripted());
        Context.CancellableContext context = Context.current().withCancellation();
        ListenableFuture<AcquireResponse> call = context.call(() -> acquire("a", CallOptions.DEFAULT));
        long id = node.frame().getId();

        context.cancel(null);

        assertThat(failure(call).getCode()).isEqualTo(Status.Code.CANCELLED);
        assertCancelFrame(node.frame(), id);
    }

    @Test
    void aBrokenStreamFailsTheCallsOnItAndTheNextCallOpensANewOne() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> lost = acquire("a", CallOptions.DEFAULT);
        node.frame();

        node.out.onError(Status.UNAVAILABLE.withDescription("node going away").asRuntimeException());
        assertThat(failure(lost).getCode()).isEqualTo(Status.Code.UNAVAILABLE);

        ListenableFuture<AcquireResponse> next = acquire("b", CallOptions.DEFAULT);
        CallRequest frame = node.frame();
        assertThat(node.opened).hasValue(2);
        assertThat(frame.getAcquire().getLock()).isEqualTo("b");
        node.answer(frame.getId(), "granted b");
        assertThat(next.get(5, SECONDS)).isEqualTo(response("granted b"));
        assertThat(mux.carrying()).isTrue();
    }

    @Test
    void closeHalfClosesTheStream() throws Exception {
        Scripted node = start(new Scripted());
        ListenableFuture<AcquireResponse> call = acquire("a", CallOptions.DEFAULT);
        node.answer(node.frame().getId(), "granted a");
        call.get(5, SECONDS);

        mux.close();

        assertThat(node.ends.poll(5, SECONDS)).isEqualTo("completed");
        assertThat(mux.carrying()).isFalse();
    }

    @Test
    void serverStatusGoesToTheChannelAsAUnaryCall() throws Exception {
        Scripted node = start(new Scripted());

        ServerStatusResponse status = ClientCalls.blockingUnaryCall(
                mux, TenureGrpc.getServerStatusMethod(), CallOptions.DEFAULT, ServerStatusRequest.getDefaultInstance());

        assertThat(status.getHealth()).isEqualTo("ok");
        assertThat(node.serverStatuses).hasValue(1);
        assertThat(node.opened).hasValue(0);
        assertThat(node.frames).isEmpty();
        assertThat(mux.carrying()).isFalse();
    }

    // --- helpers

    private <T extends Fake> T start(T node) throws Exception {
        String name = "call-mux-" + UUID.randomUUID();
        server = InProcessServerBuilder.forName(name).addService(node).build().start();
        channel = InProcessChannelBuilder.forName(name).build();
        mux = new CallMux(channel, new Heard(0), TimeSource.system(), (ch, id, sent) -> {});
        return node;
    }

    private ListenableFuture<AcquireResponse> acquire(String lock, CallOptions options) {
        return ClientCalls.futureUnaryCall(mux.newCall(TenureGrpc.getAcquireMethod(), options), request(lock));
    }

    private static AcquireRequest request(String lock) {
        return AcquireRequest.newBuilder()
                .setSessionId(7)
                .setRequestId(1)
                .setLock(lock)
                .build();
    }

    private static AcquireResponse response(String message) {
        return AcquireResponse.newBuilder().setMessage(message).build();
    }

    /** The status the call failed with, within a bounded wait. */
    private static Status failure(ListenableFuture<?> call) {
        Throwable thrown = catchThrowable(() -> call.get(5, SECONDS));
        assertThat(thrown).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(StatusRuntimeException.class);
        return ((StatusRuntimeException) thrown.getCause()).getStatus();
    }

    private static void assertCancelFrame(CallRequest frame, long id) {
        assertThat(frame.getKindCase()).isEqualTo(CallRequest.KindCase.CANCEL);
        assertThat(frame.getId()).isEqualTo(id);
    }

    /** A node that answers unary Acquire and ServerStatus, and does not serve Calls. */
    static class Fake extends TenureGrpc.TenureImplBase {
        final AtomicInteger unaryAcquires = new AtomicInteger();
        final AtomicInteger serverStatuses = new AtomicInteger();

        @Override
        public void acquire(AcquireRequest request, StreamObserver<AcquireResponse> out) {
            unaryAcquires.incrementAndGet();
            out.onNext(response("unary " + request.getLock()));
            out.onCompleted();
        }

        @Override
        public void serverStatus(ServerStatusRequest request, StreamObserver<ServerStatusResponse> out) {
            serverStatuses.incrementAndGet();
            out.onNext(ServerStatusResponse.newBuilder().setHealth("ok").build());
            out.onCompleted();
        }
    }

    /**
     * A node that serves Calls: it records every frame it receives and answers only when the test
     * says so, on the latest stream.
     */
    static final class Scripted extends Fake {
        final BlockingQueue<CallRequest> frames = new LinkedBlockingQueue<>();
        final BlockingQueue<String> ends = new LinkedBlockingQueue<>();
        final AtomicInteger opened = new AtomicInteger();
        volatile StreamObserver<CallResponse> out;

        @Override
        public StreamObserver<CallRequest> calls(StreamObserver<CallResponse> responses) {
            out = responses;
            opened.incrementAndGet();
            return new StreamObserver<>() {
                @Override
                public void onNext(CallRequest frame) {
                    frames.add(frame);
                }

                @Override
                public void onError(Throwable t) {
                    ends.add("error " + Status.fromThrowable(t).getCode());
                }

                @Override
                public void onCompleted() {
                    ends.add("completed");
                }
            };
        }

        /** The next frame received, within a bounded wait. */
        CallRequest frame() throws InterruptedException {
            CallRequest frame = frames.poll(5, SECONDS);
            assertThat(frame).as("a frame within 5 s").isNotNull();
            return frame;
        }

        void answer(long id, String message) {
            send(CallResponse.newBuilder()
                    .setId(id)
                    .setAcquire(response(message))
                    .build());
        }

        void send(CallResponse response) {
            out.onNext(response);
        }
    }
}
