package dev.tenure.server.gateway;

import static dev.tenure.server.InProcessServerTest.acquire;
import static dev.tenure.server.InProcessServerTest.put;
import static dev.tenure.server.InProcessServerTest.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.AdminScrape;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.testkit.Await;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Calls stream on a real node, driven by hand: each frame is served as its unary call would
 * be and answered by id; a Cancel, or the stream's end, withdraws a waiting acquire as a
 * cancelled unary call does; a malformed stream fails with INVALID_ARGUMENT.
 */
class CallsStreamTest {
    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone();

    /** One Calls stream; answers are collected as they come. */
    static final class Calls implements ClientResponseObserver<CallRequest, CallResponse> {
        final BlockingQueue<CallResponse> answers = new LinkedBlockingQueue<>();
        final BlockingQueue<Status> ended = new LinkedBlockingQueue<>();
        ClientCallStreamObserver<CallRequest> out;

        Calls() {
            TenureGrpc.newStub(node.channel()).calls(this);
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<CallRequest> requests) {
            out = requests;
        }

        void send(long id, AcquireRequest acquire) {
            out.onNext(CallRequest.newBuilder().setId(id).setAcquire(acquire).build());
        }

        void cancel(long id) {
            out.onNext(CallRequest.newBuilder()
                    .setId(id)
                    .setCancel(CallRequest.Cancel.getDefaultInstance())
                    .build());
        }

        CallResponse next() throws InterruptedException {
            CallResponse r = answers.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("an answer on the Calls stream").isNotNull();
            return r;
        }

        Status end() throws InterruptedException {
            Status s = ended.poll(10, TimeUnit.SECONDS);
            assertThat(s).as("the Calls stream ended").isNotNull();
            return s;
        }

        @Override
        public void onNext(CallResponse value) {
            answers.add(value);
        }

        @Override
        public void onError(Throwable t) {
            ended.add(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
            ended.add(Status.OK);
        }
    }

    @Test
    void eachCallIsServedAsItsUnaryCallAndAnsweredById() throws Exception {
        long session = new SessionStream(node.channel()).open(10_000);
        Calls calls = new Calls();
        calls.send(7, acquire(session, 1, "carried", 0));
        CallResponse granted = calls.next();
        assertThat(granted.getId()).isEqualTo(7);
        assertThat(granted.getAcquire().getCode()).isEqualTo(Code.CODE_OK);
        long token = granted.getAcquire().getGrant().getToken();

        // A retry of the same request, carried or unary, gets the same outcome.
        assertThat(node.stub()
                        .acquire(acquire(session, 1, "carried", 0))
                        .getGrant()
                        .getToken())
                .isEqualTo(token);

        calls.out.onNext(CallRequest.newBuilder()
                .setId(8)
                .setKvPut(put(session, 2, "carried-key", "v", "carried", token))
                .build());
        calls.out.onNext(CallRequest.newBuilder()
                .setId(9)
                .setLockStatus(LockStatusRequest.newBuilder().setLock("carried"))
                .build());
        CallResponse a = calls.next();
        CallResponse b = calls.next();
        CallResponse putAnswer = a.getId() == 8 ? a : b;
        CallResponse statusAnswer = a.getId() == 9 ? a : b;
        assertThat(putAnswer.getKvPut().getCode()).isEqualTo(Code.CODE_OK);
        assertThat(statusAnswer.getLockStatus().getHolder().getToken()).isEqualTo(token);

        calls.out.onNext(CallRequest.newBuilder()
                .setId(10)
                .setRelease(release(session, 3, "carried", token))
                .build());
        assertThat(calls.next().getRelease().getCode()).isEqualTo(Code.CODE_OK);

        // Bad input fails the call with the unary call's status and message; the stream goes on.
        AcquireRequest unnamed = acquire(session, 4, "", 0);
        StatusRuntimeException unary = catchThrowableOfType(
                StatusRuntimeException.class, () -> node.stub().acquire(unnamed));
        calls.send(11, unnamed);
        CallResponse invalid = calls.next();
        assertThat(invalid.getId()).isEqualTo(11);
        assertThat(invalid.getFailed().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
        assertThat(invalid.getFailed().getMessage()).isEqualTo(unary.getStatus().getDescription());
        calls.out.onNext(CallRequest.newBuilder().setId(12).build());
        CallResponse empty = calls.next();
        assertThat(empty.getFailed().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT.value());
        assertThat(empty.getFailed().getMessage()).contains("carries no request");

        // Counted with the unary calls, in one series per method and status: one unary and one
        // carried acquire so far.
        String metrics = AdminScrape.get(node.server().adminPort(), "/metrics").body();
        assertThat(series(metrics, "grpc_server_processing_duration_seconds_count", "Acquire", "statusCode=\"OK\""))
                .singleElement()
                .satisfies(v -> assertThat(v).isGreaterThanOrEqualTo(2));
        assertThat(series(metrics, "grpc_server_requests_received_messages_total", "Acquire", "methodType=\"UNARY\""))
                .singleElement()
                .satisfies(v -> assertThat(v).isGreaterThanOrEqualTo(3));
        assertThat(series(metrics, "grpc_server_requests_received_messages_total", "Calls", "BIDI_STREAMING"))
                .singleElement()
                .satisfies(v -> assertThat(v).isGreaterThanOrEqualTo(6));

        // After the client's half-close, what is in flight is answered, then the stream ends.
        heldByAnotherSession("carried-busy");
        calls.send(13, acquire(session, 5, "carried-busy", 300));
        calls.out.onCompleted();
        CallResponse timedOut = calls.next();
        assertThat(timedOut.getId()).isEqualTo(13);
        assertThat(timedOut.getAcquire().getCode()).isEqualTo(Code.CODE_HELD);
        assertThat(calls.end().isOk()).isTrue();
    }

    @Test
    void aCancelledWaitIsWithdrawnAndNeverAnswered() throws Exception {
        Held held = heldByAnotherSession("withdrawn");
        long waiter = new SessionStream(node.channel()).open(10_000);
        Calls calls = new Calls();
        calls.send(1, acquire(waiter, 1, "withdrawn", -1));
        awaitWaiters("withdrawn", 1);

        calls.cancel(1);
        awaitWaiters("withdrawn", 0);
        node.stub().release(release(held.session(), 2, "withdrawn", held.token()));
        assertThat(node.stub()
                        .lockStatus(LockStatusRequest.newBuilder()
                                .setLock("withdrawn")
                                .build())
                        .hasHolder())
                .as("the lock went to nobody")
                .isFalse();
        assertThat(calls.answers.poll(200, TimeUnit.MILLISECONDS))
                .as("no answer to a cancelled call")
                .isNull();
    }

    @Test
    void endingTheStreamWithdrawsItsWaits() throws Exception {
        heldByAnotherSession("abandoned");
        long waiter = new SessionStream(node.channel()).open(10_000);
        Calls calls = new Calls();
        calls.send(1, acquire(waiter, 1, "abandoned", -1));
        awaitWaiters("abandoned", 1);

        calls.out.cancel("the client went away", null);
        awaitWaiters("abandoned", 0);
    }

    @Test
    void malformedStreamsFailWithInvalidArgument() throws Exception {
        heldByAnotherSession("malformed");
        long session = new SessionStream(node.channel()).open(10_000);

        Calls noId = new Calls();
        noId.send(0, acquire(session, 1, "malformed", 0));
        Status s = noId.end();
        assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(s.getDescription()).contains("id must be > 0");

        // A second call under an id in flight: answers could no longer be told apart.
        Calls duplicate = new Calls();
        duplicate.send(5, acquire(session, 2, "malformed", -1));
        awaitWaiters("malformed", 1);
        duplicate.send(5, acquire(session, 3, "other", 0));
        s = duplicate.end();
        assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(s.getDescription()).contains("already in flight");
        awaitWaiters("malformed", 0); // the failed stream's wait was withdrawn
        assertThat(duplicate.answers).as("nothing answered").isEmpty();
    }

    /** The values of {@code metric}'s series for {@code method} whose labels also contain {@code label}. */
    private static List<Double> series(String scrape, String metric, String method, String label) {
        return scrape.lines()
                .filter(l -> l.startsWith(metric + "{") && l.contains("method=\"" + method + "\"") && l.contains(label))
                .map(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .toList();
    }

    private record Held(long session, long token) {}

    /** {@code lock}, granted to a session of its own, so that an acquire by any other waits. */
    private static Held heldByAnotherSession(String lock) throws InterruptedException {
        long holder = new SessionStream(node.channel()).open(10_000);
        return new Held(
                holder,
                node.stub().acquire(acquire(holder, 1, lock, 0)).getGrant().getToken());
    }

    /** Waits until the lock has {@code n} waiters: a withdrawal takes a moment (see ParkedAcquire in the gateway module). */
    private static void awaitWaiters(String lock, int n) throws InterruptedException {
        Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(50))
                .until(
                        lock + " having " + n + " waiters",
                        () -> node.stub()
                                .lockStatus(LockStatusRequest.newBuilder()
                                        .setLock(lock)
                                        .build()),
                        (LockStatusResponse status) -> status.getWaitersCount() == n);
    }
}
