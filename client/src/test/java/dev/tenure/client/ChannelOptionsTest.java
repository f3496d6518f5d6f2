package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.spi.Transport;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The transport hooks (the internal SPI, {@link Transport}): the channel factory makes every
 * endpoint's channel, and {@code unaryCalls} decides whether the lock and key-value calls travel on the Calls stream.
 * A client interceptor on those channels sees which gRPC methods were called.
 */
class ChannelOptionsTest {
    private static final String CALLS = TenureGrpc.getCallsMethod().getFullMethodName();
    private static final String ACQUIRE = TenureGrpc.getAcquireMethod().getFullMethodName();
    private static final String KV_PUT = TenureGrpc.getKvPutMethod().getFullMethodName();

    private final Harness h = new Harness(2);
    private final List<String> targets = new CopyOnWriteArrayList<>();
    private final List<ManagedChannel> channels = new CopyOnWriteArrayList<>();
    private final List<String> methods = new CopyOnWriteArrayList<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    private TenureClient.Builder builder() {
        ClientInterceptor recordMethod = new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions o, Channel next) {
                methods.add(method.getFullMethodName());
                return next.newCall(method, o);
            }
        };
        TenureClient.Builder b = TenureClient.builder()
                .endpoints(h.endpoints)
                .sessionTtl(Harness.TTL)
                .timeSource(h.time);
        return Transport.channelFactory(b, target -> {
            targets.add(target);
            ManagedChannel c = InProcessChannelBuilder.forName(target.substring(0, target.lastIndexOf(':')))
                    .directExecutor()
                    .intercept(recordMethod)
                    .build();
            channels.add(c);
            return c;
        });
    }

    private void acquireAndPut(TenureClient client) {
        Session session = client.openSession();
        Lease lease = session.acquire("a");
        session.kv().put("k", "v".getBytes(StandardCharsets.UTF_8), lease.lock(), lease.token());
    }

    @Test
    void theFactoryMakesEachEndpointsChannelOnceAndCloseShutsThemDown() {
        TenureClient client = builder().build();
        acquireAndPut(client);
        h.fake.latest().fail(); // the session resumes on the other node: its channel is made then
        h.time.advance(Duration.ofMillis(50)); // the first round's backoff: a jitter under 50 ms
        assertThat(h.fake.latest().node).isEqualTo(1);

        assertThat(targets).containsExactlyElementsOf(h.endpoints);
        client.close();
        assertThat(channels)
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.isShutdown()).isTrue());
    }

    @Test
    void byDefaultTheCallsTravelOnTheCallsStream() {
        TenureClient client = builder().build();
        acquireAndPut(client);

        // The fake node does not serve Calls, so after the stream's UNIMPLEMENTED they go unary.
        assertThat(methods).containsSubsequence(CALLS, ACQUIRE, KV_PUT);
        client.close();
    }

    @Test
    void unaryCallsMakesEachCallAUnaryCallOfItsOwn() {
        TenureClient client = Transport.unaryCalls(builder(), true).build();
        acquireAndPut(client);

        assertThat(methods).contains(ACQUIRE, KV_PUT).doesNotContain(CALLS);
        client.close();
    }
}
