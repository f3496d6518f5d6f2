package dev.tenure.server.gateway;

import static dev.tenure.server.InProcessServerTest.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.Secrets;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * AttachMany on a real node, driven by hand: each session on the stream behaves as on its own
 * Attach stream, and the stream ending is each of them ending.
 */
class AttachManyTest {
    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone();

    /** One AttachMany call; events are collected per ref. */
    static final class Many implements StreamObserver<AttachEvents> {
        final BlockingQueue<AttachEvent> events = new LinkedBlockingQueue<>();
        final BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        final Map<Long, BlockingQueue<AttachEvent>> byRef = new HashMap<>();
        final StreamObserver<AttachFrames> out;

        Many(ManagedChannel over) {
            out = TenureGrpc.newStub(over).attachMany(this);
        }

        void send(AttachFrame... frames) {
            out.onNext(AttachFrames.newBuilder().addAllFrames(List.of(frames)).build());
        }

        /** The next event of {@code ref} (events of other refs are kept for them). */
        synchronized AttachEvent next(long ref) throws InterruptedException {
            BlockingQueue<AttachEvent> mine = byRef.computeIfAbsent(ref, r -> new LinkedBlockingQueue<>());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (mine.isEmpty()) {
                AttachEvent e = events.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(e).as("an event for ref %s", ref).isNotNull();
                byRef.computeIfAbsent(e.getRef(), r -> new LinkedBlockingQueue<>())
                        .add(e);
            }
            return mine.poll();
        }

        long open(long ref, long ttlMs) throws InterruptedException {
            send(request(
                    ref,
                    AttachRequest.newBuilder()
                            .setOpen(AttachRequest.Open.newBuilder()
                                    .setTtlMs(ttlMs)
                                    .setClientName("many"))
                            .build()));
            AttachEvent e = next(ref);
            assertThat(e.getResponse().hasOpened()).as("opened: %s", e).isTrue();
            Secrets.opened(e.getResponse().getOpened());
            return e.getResponse().getOpened().getSessionId();
        }

        @Override
        public void onNext(AttachEvents value) {
            events.addAll(value.getEventsList());
        }

        @Override
        public void onError(Throwable t) {
            errors.add(t);
        }

        @Override
        public void onCompleted() {}
    }

    static AttachFrame request(long ref, AttachRequest r) {
        return AttachFrame.newBuilder().setRef(ref).setRequest(r).build();
    }

    static AttachFrame keepAlive(long ref, long seq) {
        return request(
                ref,
                AttachRequest.newBuilder()
                        .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(seq))
                        .build());
    }

    static AttachFrame detach(long ref) {
        return AttachFrame.newBuilder()
                .setRef(ref)
                .setDetach(AttachFrame.Detach.getDefaultInstance())
                .build();
    }

    @Test
    void sessionsOnOneStreamAreRenewedApartAndADetachEndsOnlyItsOwn() throws Exception {
        Many many = new Many(node.channel());
        long s1 = many.open(1, 60_000);
        long s2 = many.open(2, 60_000);
        assertThat(s1).isNotEqualTo(s2);

        many.send(keepAlive(1, 7), keepAlive(2, 9));
        assertThat(many.next(1).getResponse().getAck().getSeq()).isEqualTo(7);
        assertThat(many.next(2).getResponse().getAck().getSeq()).isEqualTo(9);

        var blocking = node.stub();
        AcquireResponse held = blocking.acquire(acquire(s1, 1, "many-detach", 0));
        assertThat(held.getCode()).isEqualTo(Code.CODE_OK);
        var waiting = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(s2, 1, "many-detach", -1));

        many.send(detach(1)); // as ref 1's own stream closing: its session ends, DISCONNECTED
        AcquireResponse next = waiting.get(10, TimeUnit.SECONDS);
        assertThat(next.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
        assertThat(next.getGrant().getPreviousToken()).isEqualTo(held.getGrant().getToken());

        many.send(keepAlive(2, 10));
        assertThat(many.next(2).getResponse().getAck().getSeq())
                .as("the other session on the stream lives on")
                .isEqualTo(10);
        many.out.onCompleted();
    }

    @Test
    void theStreamClosingEndsEverySessionOnIt() throws Exception {
        ManagedChannel own = node.newChannel();
        Many many = new Many(own);
        long s1 = many.open(1, 60_000);
        long s2 = many.open(2, 60_000);
        var blocking = node.stub();
        AcquireResponse a = blocking.acquire(acquire(s1, 1, "many-a", 0));
        AcquireResponse b = blocking.acquire(acquire(s2, 1, "many-b", 0));

        Many other = new Many(node.channel());
        long w = other.open(1, 60_000);
        var waitA = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(w, 1, "many-a", -1));
        var waitB = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(w, 2, "many-b", -1));
        own.shutdownNow(); // the client process dies: its one connection closes

        AcquireResponse nextA = waitA.get(10, TimeUnit.SECONDS);
        AcquireResponse nextB = waitB.get(10, TimeUnit.SECONDS);
        assertThat(nextA.getGrant().getPreviousToken()).isEqualTo(a.getGrant().getToken());
        assertThat(nextB.getGrant().getPreviousToken()).isEqualTo(b.getGrant().getToken());
        assertThat(nextA.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
        assertThat(nextB.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
        other.out.onCompleted();
    }

    @Test
    void aSubStreamFailsAloneAsItsOwnStreamWouldAndABadRefFailsTheCall() throws Exception {
        Many many = new Many(node.channel());
        long s1 = many.open(1, 60_000);
        many.send(keepAlive(2, 1)); // a keepalive before an Open, on ref 2 only
        AttachEvent failed = many.next(2);
        assertThat(failed.hasFailed()).as("%s", failed).isTrue();
        assertThat(failed.getFailed().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION.value());
        assertThat(failed.getFailed().getMessage()).contains("open or resume a session first");

        many.send(keepAlive(1, 5));
        assertThat(many.next(1).getResponse().getAck().getSeq()).isEqualTo(5);
        assertThat(s1).isPositive();

        many.send(keepAlive(0, 6));
        Throwable t = many.errors.poll(10, TimeUnit.SECONDS);
        assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(Status.fromThrowable(t).getDescription()).contains("ref must be > 0");
    }
}
