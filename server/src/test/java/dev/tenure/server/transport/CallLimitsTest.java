package dev.tenure.server.transport;

import static dev.tenure.server.InProcessServerTest.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.server.InProcessServerTest.SessionStream;
import dev.tenure.server.NodeExtension;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.server.transport.SlowReadersTest.Reader;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Calls are bounded per Calls stream (callsInFlightMax: one more is refused, by name, and changes
 * nothing) and per connection (callsPerConnectionMax, HTTP/2's concurrent streams, which gRPC
 * clients queue behind).
 */
class CallLimitsTest {
    static final ConnectionLimits LIMITS =
            ConnectionLimits.defaults().withCallsPerConnectionMax(4).withCallsInFlightMax(2);

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone(LIMITS);

    @Test
    void aCallPastCallsInFlightMaxIsRefusedNamingTheLimitAndChangesNothing() throws Exception {
        long holder = new SessionStream(node.channel()).open(10_000);
        long waiter = new SessionStream(node.channel()).open(10_000);
        long request = 0;
        for (String lock : new String[] {"full-a", "full-b", "full-c"}) {
            assertThat(node.stub().acquire(acquire(holder, ++request, lock, 0)).getCode())
                    .isEqualTo(Code.CODE_OK);
        }
        Reader calls = new Reader(node.channel(), TenureGrpc.getCallsMethod(), Integer.MAX_VALUE);
        calls.send(call(1, acquire(waiter, 1, "full-a", -1)));
        calls.send(call(2, acquire(waiter, 2, "full-b", -1)));
        Await.atMost(Duration.ofSeconds(10))
                .until("two waiters queued", () -> waiters("full-a") + waiters("full-b") == 2);

        calls.send(call(3, acquire(waiter, 3, "full-c", -1)));
        CallResponse refused = calls.next();
        assertThat(refused.getId()).isEqualTo(3);
        assertThat(refused.getFailed().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED.value());
        assertThat(refused.getFailed().getMessage())
                .startsWith("callsInFlightMax: a Calls stream carries at most 2 calls in flight; Acquire 3 was refused"
                        + " and changed nothing");
        assertThat(refused.getFailed().getCallsInFlightMax()).isEqualTo(2);
        assertThat(waiters("full-c")).as("the refused acquire queued nothing").isZero();

        // Once fewer are in flight, the same call is taken.
        calls.send(CallRequest.newBuilder()
                .setId(1)
                .setCancel(CallRequest.Cancel.getDefaultInstance())
                .build());
        calls.send(call(4, acquire(waiter, 3, "full-c", -1)));
        Await.atMost(Duration.ofSeconds(10)).until("the acquire queued", () -> waiters("full-c") == 1);
        calls.cancel();
    }

    @Test
    void callsPastCallsPerConnectionMaxWaitInTheClientUntilOneEnds() throws Exception {
        ManagedChannel channel = node.newChannel();
        try {
            Reader[] open = new Reader[LIMITS.callsPerConnectionMax()];
            for (int i = 0; i < open.length; i++) {
                open[i] = new Reader(channel, TenureGrpc.getCallsMethod(), Integer.MAX_VALUE);
                open[i].send(status(1, "per-connection"));
                assertThat(open[i].next().hasLockStatus()).isTrue();
            }
            Reader fifth = new Reader(channel, TenureGrpc.getCallsMethod(), Integer.MAX_VALUE);
            fifth.send(status(1, "per-connection"));
            assertThat(fifth.answers.poll(500, TimeUnit.MILLISECONDS))
                    .as("an answer on a fifth call while four are open")
                    .isNull();

            open[0].halfClose();
            assertThat(open[0].end().isOk()).isTrue();
            assertThat(fifth.next().hasLockStatus())
                    .as("the fifth call, once the first ended")
                    .isTrue();
        } finally {
            channel.shutdownNow();
        }
    }

    private static CallRequest call(long id, AcquireRequest acquire) {
        return CallRequest.newBuilder().setId(id).setAcquire(acquire).build();
    }

    private static CallRequest status(long id, String lock) {
        return CallRequest.newBuilder()
                .setId(id)
                .setLockStatus(LockStatusRequest.newBuilder().setLock(lock))
                .build();
    }

    private static int waiters(String lock) {
        return node.stub()
                .lockStatus(LockStatusRequest.newBuilder().setLock(lock).build())
                .getWaitersCount();
    }
}
