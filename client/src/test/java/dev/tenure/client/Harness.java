package dev.tenure.client;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * In-process nodes all serving one {@link FakeTenure}, a {@link ManualTimeSource}, and a client
 * wired to both. Channels and servers use direct executors, so a test's advance() or call runs
 * the whole exchange (client → fake → client) on the test's own thread, deterministically.
 */
final class Harness implements AutoCloseable {
    static final Duration TTL = Duration.ofSeconds(3);
    /** TTL − the default drift margin (TTL/20). */
    static final long LIFETIME_NANOS = TTL.toNanos() - TTL.toNanos() / 20;

    static final Duration KEEPALIVE = TTL.dividedBy(3);

    final FakeTenure fake = new FakeTenure();
    final ManualTimeSource time = new ManualTimeSource();
    final RecordingListener events = new RecordingListener();
    final List<String> endpoints = new ArrayList<>();
    private final List<Server> servers = new ArrayList<>();
    private TenureClient client;

    Harness(int nodes) {
        String prefix = "tenure-" + UUID.randomUUID();
        for (int i = 0; i < nodes; i++) {
            String name = prefix + "-" + i;
            try {
                servers.add(InProcessServerBuilder.forName(name)
                        .directExecutor()
                        .addService(ServerInterceptors.intercept(fake, node(i)))
                        .build()
                        .start());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            endpoints.add(name + ":7100");
        }
    }

    /** Most tests here are about the horizon alone: no grace, unless they set their own. */
    TenureClient.Builder builder() {
        return defaultsBuilder().disconnectGrace(Duration.ZERO);
    }

    /** The client's own defaults, disconnect grace included. */
    TenureClient.Builder defaultsBuilder() {
        return TenureClient.builder()
                .endpoints(endpoints)
                .sessionTtl(TTL)
                .timeSource(time)
                .listener(events)
                .channelFactory(
                        endpoint -> InProcessChannelBuilder.forName(endpoint.substring(0, endpoint.lastIndexOf(':')))
                                .directExecutor()
                                .build());
    }

    TenureClient client() {
        if (client == null) {
            client = builder().build();
        }
        return client;
    }

    /** Stops one node: its streams break and new calls to it fail with UNAVAILABLE. */
    void stop(int node) {
        servers.get(node).shutdownNow();
    }

    @Override
    public void close() {
        if (client != null) {
            fake.acks = FakeTenure.Acks.AUTO;
            fake.answerClose = true;
            client.close();
        }
        for (Server s : servers) {
            try {
                s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the test's end: the next server still shuts down
            }
        }
    }

    private static ServerInterceptor node(int index) {
        return new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                return Contexts.interceptCall(Context.current().withValue(FakeTenure.NODE, index), call, headers, next);
            }
        };
    }
}
