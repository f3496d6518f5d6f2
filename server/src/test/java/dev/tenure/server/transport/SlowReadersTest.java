package dev.tenure.server.transport;

import static dev.tenure.server.InProcessServerTest.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.AdminScrape;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.Secrets;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.testkit.Await;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a node keeps for clients that do not read is bounded: past unsentBytesMax on a connection,
 * or nodeUnsentBytesMax over all, the call ends RESOURCE_EXHAUSTED and its connection is closed
 * (an Attach stream's sessions then end as on a disconnect), and nobody else is affected.
 */
class SlowReadersTest {
    static final ConnectionLimits LIMITS = ConnectionLimits.defaults().withUnsentBytesMax(256 << 10, 384 << 10);

    /** A client's window for what the node sends, small so that a client that does not read fills it soon. */
    static final int CLIENT_WINDOW = 65_535;

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(LIMITS);

    @BeforeEach
    void nothingIsWaitingForAnyClient() throws Exception {
        Await.atMost(Duration.ofSeconds(10)).until("no answers wait for slow clients", () -> metric("unsent") == 0);
    }

    @Test
    void aClientThatDoesNotReadItsCallsStreamIsCutOffAndOthersAreServed() throws Exception {
        String key = putValue("slow-calls", 64 << 10);
        long cutBefore = metric("slow_readers_total");
        int open = node.server().openConnections();
        ManagedChannel slowChannel = smallWindowChannel();
        try {
            Reader slow = new Reader(slowChannel, TenureGrpc.getCallsMethod(), 0);
            for (int i = 1; i <= 100; i++) { // 6.4 MiB of answers
                slow.send(get(i, key));
            }
            // A client that does not read hears of its call's end only after what is queued, so
            // the node's side is what shows it: counted as a slow reader, the connection closed.
            // The count comes first: the channel connects lazily, so "as many connections as
            // before" also holds before the slow one was ever opened.
            Await.atMost(Duration.ofSeconds(10))
                    .until("the node cut the slow client off", () -> metric("slow_readers_total") == cutBefore + 1);
            Await.atMost(Duration.ofSeconds(10))
                    .until(
                            "the node closed the slow client's connection",
                            () -> node.server().openConnections() == open);
            // Others are served throughout.
            assertThat(node.stub()
                            .kvGet(KvGetRequest.newBuilder().setKey(key).build())
                            .getValue()
                            .size())
                    .isEqualTo(64 << 10);
        } finally {
            slowChannel.shutdownNow();
        }
    }

    @Test
    void aClientThatReadsAgainSoonAfterItWasCutOffIsToldWhy() throws Exception {
        String key = putValue("told-why", 64 << 10);
        long cutBefore = metric("slow_readers_total");
        ManagedChannel slowChannel = smallWindowChannel();
        try {
            Reader slow = new Reader(slowChannel, TenureGrpc.getCallsMethod(), 0);
            for (int i = 1; i <= 100; i++) {
                slow.send(get(i, key));
            }
            Await.atMost(Duration.ofSeconds(10))
                    .every(Duration.ofMillis(5))
                    .until("the node cut the call off", () -> metric("slow_readers_total") == cutBefore + 1);
            slow.call.request(Integer.MAX_VALUE); // within the second the node waits before it closes
            Status end = slow.end();
            assertThat(end.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(end.getDescription())
                    .startsWith("client not reading: ")
                    .contains("past unsentBytesMax (262144 bytes)");
            assertThat(slow.answers).isNotEmpty().hasSizeLessThan(100);
        } finally {
            slowChannel.shutdownNow();
        }
    }

    @Test
    void aClientThatDoesNotReadItsSessionStreamLosesItsSessionsAsOnADisconnect() throws Exception {
        ManagedChannel slowChannel = smallWindowChannel();
        try {
            Reader holderStream = new Reader(slowChannel, TenureGrpc.getAttachManyMethod(), 1);
            holderStream.send(AttachFrames.newBuilder()
                    .addFrames(AttachFrame.newBuilder()
                            .setRef(1)
                            .setRequest(AttachRequest.newBuilder()
                                    .setOpen(AttachRequest.Open.newBuilder()
                                            .setTtlMs(30_000)
                                            .setClientName("does-not-read")
                                            .setDisconnectGraceMs(500))))
                    .build());
            AttachEvent opened = ((AttachEvents) holderStream.nextMessage()).getEvents(0);
            Secrets.opened(opened.getResponse().getOpened());
            long holder = opened.getResponse().getOpened().getSessionId();
            assertThat(node.stub().acquire(acquire(holder, 1, "unread", 0)).getCode())
                    .isEqualTo(Code.CODE_OK);
            long waiter = new SessionStream(node.channel()).open(30_000);
            var waiting = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(waiter, 1, "unread", -1));

            // Echoes, each answered at once, and never read.
            for (int seq = 1; seq <= 20_000 && holderStream.ended.isEmpty(); seq++) {
                holderStream.send(AttachFrames.newBuilder().setEcho(seq).build());
            }

            AcquireResponse handed = waiting.get(30, TimeUnit.SECONDS);
            assertThat(handed.getCode()).isEqualTo(Code.CODE_OK);
            assertThat(handed.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
            assertThat(handed.getGrant().getPreviousToken()).isPositive();
        } finally {
            slowChannel.shutdownNow();
        }
    }

    @Test
    void clientsThatDoNotReadAreBoundTogetherByNodeUnsentBytesMax() throws Exception {
        String key = putValue("together", 8 << 10);
        long cutBefore = metric("slow_readers_total");
        ManagedChannel first = smallWindowChannel();
        ManagedChannel second = smallWindowChannel();
        try {
            // About 250 KiB of answers: the first 96 KiB fill the client's window and gRPC's
            // threshold, the rest wait, below this connection's 256 KiB.
            Reader a = new Reader(first, TenureGrpc.getCallsMethod(), 0);
            for (int i = 1; i <= 30; i++) {
                a.send(get(i, key));
            }
            Await.atMost(Duration.ofSeconds(10))
                    .until("the first client's answers wait", () -> metric("unsent") > 100 << 10);
            long firstWaits = metric("unsent");
            assertThat(firstWaits).isLessThan(LIMITS.unsentBytesMax());

            // The second would stay under its connection's bound too, but the two together pass the node's.
            Reader b = new Reader(second, TenureGrpc.getCallsMethod(), 0);
            for (int i = 1; i <= 60; i++) {
                b.send(get(i, key));
            }
            Await.atMost(Duration.ofSeconds(10))
                    .until("the second client cut off", () -> metric("slow_readers_total") == cutBefore + 1);

            // The first was not cut: it reads everything once it reads.
            a.call.request(Integer.MAX_VALUE);
            for (int i = 1; i <= 30; i++) {
                assertThat(a.next().getKvGet().getValue().size()).isEqualTo(8 << 10);
            }
            Await.atMost(Duration.ofSeconds(10)).until("nothing waits any more", () -> metric("unsent") == 0);
            a.cancel();
        } finally {
            first.shutdownNow();
            second.shutdownNow();
        }
    }

    // --- helpers

    /**
     * One streaming call driven by hand, reading only as many messages as asked: a client that
     * does not read is one that asks for none.
     */
    static final class Reader extends ClientCall.Listener<Object> {
        final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
        final BlockingQueue<CallResponse> answers = new LinkedBlockingQueue<>();
        final BlockingQueue<Status> ended = new LinkedBlockingQueue<>();
        final ClientCall<Object, Object> call;

        @SuppressWarnings("unchecked")
        <Q, R> Reader(ManagedChannel channel, MethodDescriptor<Q, R> method, int read) {
            call = (ClientCall<Object, Object>) (ClientCall<?, ?>)
                    channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS));
            call.start(this, new Metadata());
            if (read > 0) {
                call.request(read);
            }
        }

        void send(Object message) {
            call.sendMessage(message);
        }

        void halfClose() {
            call.halfClose();
        }

        void cancel() {
            call.cancel("done", null);
        }

        CallResponse next() throws InterruptedException {
            CallResponse r = answers.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("an answer").isNotNull();
            return r;
        }

        Object nextMessage() throws InterruptedException {
            Object m = messages.poll(10, TimeUnit.SECONDS);
            assertThat(m).as("a message").isNotNull();
            return m;
        }

        Status end() throws InterruptedException {
            Status s = ended.poll(30, TimeUnit.SECONDS);
            assertThat(s).as("the call's end").isNotNull();
            return s;
        }

        @Override
        public void onMessage(Object message) {
            if (message instanceof CallResponse r) {
                answers.add(r);
            } else {
                messages.add(message);
            }
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            ended.add(status);
        }
    }

    private static ManagedChannel smallWindowChannel() {
        return NettyChannelBuilder.forAddress("127.0.0.1", node.server().port())
                .usePlaintext()
                .flowControlWindow(CLIENT_WINDOW)
                .build();
    }

    /** Puts a value of {@code bytes} under a fresh key; the key. */
    private static String putValue(String name, int bytes) {
        String key = name + "-" + System.nanoTime();
        node.stub()
                .kvPut(KvPutRequest.newBuilder()
                        .setKey(key)
                        .setValue(ByteString.copyFrom(new byte[bytes]))
                        .build());
        return key;
    }

    private static CallRequest get(long id, String key) {
        return CallRequest.newBuilder()
                .setId(id)
                .setKvGet(KvGetRequest.newBuilder().setKey(key))
                .build();
    }

    /** A tenure_connections_* figure from the node's metrics. */
    private static long metric(String name) throws Exception {
        String prefix = "tenure_connections_" + name + (name.equals("unsent") ? "_bytes" : "");
        String metrics = AdminScrape.get(node.server().adminPort(), "/metrics").body();
        return metrics.lines()
                .filter(l -> l.startsWith(prefix + " ") || l.startsWith(prefix + "{"))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + prefix + " in\n" + metrics));
    }
}
