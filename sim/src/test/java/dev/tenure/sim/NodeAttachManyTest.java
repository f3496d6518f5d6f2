package dev.tenure.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A simulated node serves AttachMany with the server's own gateway, frame by frame, on a quiet
 * network (fixed latency, no loss) with no client library in between: every case the real client
 * never produces (a malformed frame, a stale frame for an ended ref) is shown here.
 */
class NodeAttachManyTest {
    private static final long TTL_MS = 600;

    private final World world = new World(quietConfig(), new SplittableRandom(1));
    private final ClientProcess process = new ClientProcess(world, 0, 0);

    @Test
    void eachRefCarriesASessionOfItsOwnAndItsResponsesAreTaggedWithIt() {
        Recorder<AttachEvents> events = new Recorder<>();
        ClientCall<AttachFrames, AttachEvents> call = attachMany(events);

        call.sendMessage(frames(open(1), open(2)));
        settle();
        long s1 = opened(events, 1);
        long s2 = opened(events, 2);
        assertThat(s1).isNotEqualTo(s2);

        call.sendMessage(frames(keepAlive(2, 7)));
        settle();
        assertThat(last(events).getRef()).isEqualTo(2);
        assertThat(last(events).getResponse().getAck().getSeq()).isEqualTo(7);
        assertThat(events.closed).isNull();
    }

    @Test
    void aDetachEndsThatSubStreamOnlyAndFreesItsRef() {
        Recorder<AttachEvents> events = new Recorder<>();
        ClientCall<AttachFrames, AttachEvents> call = attachMany(events);
        call.sendMessage(frames(open(1), open(2)));
        settle();
        long s1 = opened(events, 1);

        call.sendMessage(frames(detach(1)));
        settle();
        assertThat(traced("Close(s" + s1 + ",DISCONNECTED"))
                .as("its stream ended")
                .isTrue();
        int before = events(events).size();

        // A stale frame for the freed ref starts a sub-stream, which fails; the other ref lives on.
        call.sendMessage(frames(keepAlive(1, 3), keepAlive(2, 4)));
        settle();
        List<AttachEvent> all = events(events);
        List<AttachEvent> after = all.subList(before, all.size());
        assertThat(after).hasSize(2);
        assertThat(after.get(0).getRef()).isEqualTo(1);
        assertThat(after.get(0).getFailed().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION.value());
        assertThat(after.get(1).getRef()).isEqualTo(2);
        assertThat(after.get(1).getResponse().getAck().getSeq()).isEqualTo(4);
        assertThat(events.closed).isNull();
    }

    @Test
    void aSessionEndedCompletesItsSubStreamWithNothingMore() {
        Recorder<AttachEvents> events = new Recorder<>();
        ClientCall<AttachFrames, AttachEvents> call = attachMany(events);
        call.sendMessage(frames(open(1)));
        settle();
        opened(events, 1);

        call.sendMessage(frames(request(
                1,
                AttachRequest.newBuilder()
                        .setClose(AttachRequest.Close.newBuilder().setEnd(TenureEnd.TENURE_END_RELEASED))
                        .build())));
        settle();
        assertThat(last(events).getRef()).isEqualTo(1);
        assertThat(last(events).getResponse().getSessionEnded().getEnd()).isEqualTo(TenureEnd.TENURE_END_RELEASED);
        assertThat(events.closed).isNull();
    }

    @Test
    void halfClosingTheCallHalfClosesEverySubStreamAndCompletesIt() {
        Recorder<AttachEvents> events = new Recorder<>();
        ClientCall<AttachFrames, AttachEvents> call = attachMany(events);
        call.sendMessage(frames(open(1), open(2)));
        settle();
        long s1 = opened(events, 1);
        long s2 = opened(events, 2);

        call.halfClose();
        settle();
        assertThat(events.closed.getCode()).isEqualTo(Status.Code.OK);
        assertThat(traced("Close(s" + s1 + ",DISCONNECTED")).isTrue();
        assertThat(traced("Close(s" + s2 + ",DISCONNECTED")).isTrue();
    }

    @Test
    void cancellingTheCallBreaksEverySubStream() {
        Recorder<AttachEvents> events = new Recorder<>();
        ClientCall<AttachFrames, AttachEvents> call = attachMany(events);
        call.sendMessage(frames(open(1), open(2)));
        settle();
        long s1 = opened(events, 1);
        long s2 = opened(events, 2);

        call.cancel("done", null);
        settle();
        assertThat(traced("Close(s" + s1 + ",DISCONNECTED")).isTrue();
        assertThat(traced("Close(s" + s2 + ",DISCONNECTED")).isTrue();
    }

    @Test
    void aFrameWithoutAPositiveRefFailsTheWholeCall() {
        Recorder<AttachEvents> events = new Recorder<>();
        attachMany(events).sendMessage(frames(open(1), open(0)));
        settle();
        assertThat(events.closed.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(events.messages).isEmpty();
    }

    @Test
    void anEmptyFrameFailsTheWholeCall() {
        Recorder<AttachEvents> events = new Recorder<>();
        attachMany(events).sendMessage(frames(AttachFrame.newBuilder().setRef(1).build()));
        settle();
        assertThat(events.closed.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    @Test
    void plainAttachStillCarriesOneSession() {
        Recorder<AttachResponse> responses = new Recorder<>();
        ClientCall<AttachRequest, AttachResponse> call = start(TenureGrpc.getAttachMethod(), responses);
        call.sendMessage(open(1).getRequest());
        settle();
        assertThat(responses.messages).hasSize(1);
        assertThat(responses.messages.get(0).getOpened().getSessionId()).isPositive();

        call.halfClose();
        settle();
        assertThat(responses.closed.getCode()).isEqualTo(Status.Code.OK);
    }

    // ---- helpers ----

    private static SimConfig quietConfig() {
        return new SimConfig(
                1,
                SimConfig.Mutation.NONE,
                false,
                false,
                1,
                3,
                1,
                TTL_MS,
                Network.ms(60_000),
                Network.ms(1),
                0,
                0,
                0,
                0,
                0,
                new long[1],
                new long[3],
                new long[3],
                0,
                2);
    }

    private ClientCall<AttachFrames, AttachEvents> attachMany(Recorder<AttachEvents> events) {
        return start(TenureGrpc.getAttachManyMethod(), events);
    }

    private <Q, R> ClientCall<Q, R> start(MethodDescriptor<Q, R> method, Recorder<R> recorder) {
        ClientCall<Q, R> call = process.channel(0).newCall(method, CallOptions.DEFAULT);
        call.start(recorder, new Metadata());
        return call;
    }

    /** Long enough for a commit and its answer, well within a TTL. */
    private void settle() {
        world.loop.run(world.loop.nowNanos() + Network.ms(TTL_MS / 4), () -> {}, () -> false);
    }

    private boolean traced(String part) {
        return world.trace.tail().stream().anyMatch(l -> l.contains(part));
    }

    private static long opened(Recorder<AttachEvents> events, long ref) {
        return events(events).stream()
                .filter(e -> e.getRef() == ref && e.getResponse().hasOpened())
                .findFirst()
                .orElseThrow()
                .getResponse()
                .getOpened()
                .getSessionId();
    }

    private static List<AttachEvent> events(Recorder<AttachEvents> events) {
        List<AttachEvent> out = new ArrayList<>();
        events.messages.forEach(m -> out.addAll(m.getEventsList()));
        return out;
    }

    private static AttachEvent last(Recorder<AttachEvents> events) {
        List<AttachEvent> all = events(events);
        return all.get(all.size() - 1);
    }

    private static AttachFrames frames(AttachFrame... frames) {
        return AttachFrames.newBuilder().addAllFrames(List.of(frames)).build();
    }

    private static AttachFrame open(long ref) {
        return request(
                ref,
                AttachRequest.newBuilder()
                        .setOpen(
                                AttachRequest.Open.newBuilder().setTtlMs(TTL_MS).setClientName("t"))
                        .build());
    }

    private static AttachFrame keepAlive(long ref, long seq) {
        return request(
                ref,
                AttachRequest.newBuilder()
                        .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(seq))
                        .build());
    }

    private static AttachFrame detach(long ref) {
        return AttachFrame.newBuilder()
                .setRef(ref)
                .setDetach(AttachFrame.Detach.getDefaultInstance())
                .build();
    }

    private static AttachFrame request(long ref, AttachRequest request) {
        return AttachFrame.newBuilder().setRef(ref).setRequest(request).build();
    }

    /** What one call received. */
    private static final class Recorder<R> extends ClientCall.Listener<R> {
        final List<R> messages = new ArrayList<>();
        Status closed;

        @Override
        public void onMessage(R message) {
            messages.add(message);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            closed = status;
        }
    }
}
