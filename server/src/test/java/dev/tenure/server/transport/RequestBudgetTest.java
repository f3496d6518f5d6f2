package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.core.Limits;
import dev.tenure.server.CallFrames;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.RawConnection;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Requests in flight are bounded per connection and over the node: a unary call that does not fit
 * is refused RESOURCE_EXHAUSTED naming the limit before its request is read, and changes nothing;
 * session streams' keepalives and echoes are served meanwhile. A call whose request has not
 * arrived holds the room of the largest one (messageBytesMax), so calls that send their headers
 * and never their request fill the budget without a byte of data.
 */
class RequestBudgetTest {
    static final long MESSAGE = ServerConfig.messageBytesMaxFor(Limits.defaults());

    /** Room for two requests of the largest size on a connection, three over the node. */
    static final ConnectionLimits LIMITS = ConnectionLimits.defaults().withRequestBytesMax(2 * MESSAGE, 3 * MESSAGE);

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(LIMITS);

    /**
     * The calls of the test before are let go once the node has seen their connection close, on
     * a loop of its own: until then they would hold part of the budget that a test fills.
     */
    @BeforeEach
    void budgetIsFree() throws InterruptedException {
        awaitHeld(0, "the node let go of the calls of earlier tests");
    }

    private static void awaitHeld(long bytes, String what) throws InterruptedException {
        Await.atMost(Duration.ofSeconds(10)).until(what, () -> node.server().requestBytesHeld() == bytes);
    }

    @Test
    void aUnaryCallPastTheNodesBudgetIsRefusedNamingItAndChangesNothingWhileSessionsAreKeptAlive() throws Exception {
        SessionStream session = new SessionStream(node.channel());
        long id = session.open(30_000);
        List<RawConnection> waiting = new ArrayList<>();
        try {
            // Three calls on two connections that never send their request: the node's whole budget.
            RawConnection first = RawConnection.idle(node.server().port());
            waiting.add(first);
            first.send(putsWithoutRequest(1, 2));
            RawConnection second = RawConnection.idle(node.server().port());
            waiting.add(second);
            second.send(putsWithoutRequest(1, 1));

            // Every call is refused once the node has read the three calls' headers.
            awaitHeld(3 * MESSAGE, "the node read the three calls' headers");
            String refusedKey = "refused";
            Status refused = refusal(refusedKey);
            assertThat(refused).as("a put past the node's budget").isNotNull();
            assertThat(refused.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(refused.getDescription())
                    .startsWith("nodeRequestBytesMax: requests in flight hold ")
                    .contains("of the " + 3 * MESSAGE + " the node may hold (--node-request-bytes-max)")
                    .endsWith("this call was refused before its request was read and changed nothing");

            // The session stream is not held back: a keepalive is committed and acknowledged, an
            // echo answered.
            session.out.onNext(AttachRequest.newBuilder()
                    .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(1))
                    .build());
            AttachResponse ack = session.next();
            assertThat(ack.hasAck()).as("a keepalive ack: %s", ack).isTrue();
            session.out.onNext(AttachRequest.newBuilder()
                    .setEcho(AttachRequest.Echo.newBuilder().setSeq(2))
                    .build());
            assertThat(session.next().hasEchoed()).isTrue();

            // Once the calls that hold the budget go, it has room again.
            for (RawConnection c : waiting) {
                c.close();
            }
            Await.atMost(Duration.ofSeconds(10)).until("a put is taken again", () -> refusal("taken") == null);
            assertThat(node.stub()
                            .kvGet(KvGetRequest.newBuilder().setKey(refusedKey).build())
                            .getCode())
                    .as("the refused put changed nothing")
                    .isNotEqualTo(Code.CODE_OK);
            assertThat(node.stub()
                            .kvGet(KvGetRequest.newBuilder().setKey("taken").build())
                            .getValue()
                            .toStringUtf8())
                    .isEqualTo("v");
            assertThat(id).isPositive();
        } finally {
            for (RawConnection c : waiting) {
                c.close();
            }
        }
    }

    @Test
    void aConnectionPastItsOwnBudgetHasItsNextCallRefusedAndOthersAreServed() throws Exception {
        try (RawConnection greedy = RawConnection.idle(node.server().port())) {
            // Two calls that hold the connection's whole budget, then a third.
            greedy.send(putsWithoutRequest(1, 3));
            RawConnection.Frame end = null;
            for (RawConnection.Frame f = greedy.next(10_000); f != null; f = greedy.next(10_000)) {
                if (f.endsAStream()) {
                    end = f;
                    break;
                }
            }
            assertThat(end).as("a call that ended").isNotNull();
            assertThat(end.streamId())
                    .as("the third call, the one past the connection's budget")
                    .isEqualTo(5);
            // Another connection has room on the node: two of three taken.
            assertThat(refusal("other-connection")).isNull();
        }
    }

    @Test
    void openWatchesHoldNoRoomOnceTheirRequestArrived() throws Exception {
        // Five watches where the node has room for three requests at once: each is asked for two
        // messages and sends one, then half-closes; an open watch holds nothing after that.
        List<io.grpc.Context.CancellableContext> watches = new ArrayList<>();
        java.util.concurrent.CountDownLatch synced = new java.util.concurrent.CountDownLatch(5);
        try {
            for (int i = 0; i < 5; i++) {
                io.grpc.Context.CancellableContext context =
                        io.grpc.Context.current().withCancellation();
                watches.add(context);
                context.run(() -> dev.tenure.api.v1.TenureGrpc.newStub(node.channel())
                        .watch(
                                dev.tenure.api.v1.WatchRequest.newBuilder()
                                        .setPrefix("budget/")
                                        .build(),
                                new io.grpc.stub.StreamObserver<>() {
                                    @Override
                                    public void onNext(dev.tenure.api.v1.WatchEvent e) {
                                        if (e.getKind() == dev.tenure.api.v1.WatchKind.WATCH_KIND_SYNCED) {
                                            synced.countDown();
                                        }
                                    }

                                    @Override
                                    public void onError(Throwable t) {}

                                    @Override
                                    public void onCompleted() {}
                                }));
            }
            assertThat(synced.await(30, java.util.concurrent.TimeUnit.SECONDS))
                    .as("all five watches started")
                    .isTrue();
            awaitHeld(0, "the open watches hold no room");
            assertThat(refusal("beside-watches")).isNull();
        } finally {
            watches.forEach(c -> c.cancel(null));
        }
    }

    /** Puts {@code key} through the node's own channel; the status it was refused with, or null once taken. */
    private static Status refusal(String key) {
        ManagedChannel channel = node.channel();
        try {
            dev.tenure.api.v1.TenureGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(10, java.util.concurrent.TimeUnit.SECONDS)
                    .kvPut(KvPutRequest.newBuilder()
                            .setKey(key)
                            .setValue(ByteString.copyFromUtf8("v"))
                            .build());
            return null;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** HEADERS of {@code n} KvPut calls from stream {@code firstStream} on, and not a byte of their requests. */
    private static byte[] putsWithoutRequest(int firstStream, int n) throws Exception {
        return CallFrames.calls(CallFrames.callHeaders("KvPut"), firstStream, n, List.of());
    }
}
