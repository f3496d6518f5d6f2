package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.KvEntry;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed with -9 and restarted on the same data: tokens never go backwards, fenced
 * values survive, a held lease survives with its TTL restarted, and a retried acquire still
 * returns its original grant.
 */
class RestartIT {

    @TempDir
    Path data;

    @Test
    void killNineAndRestartLosesNothingAcknowledged() throws Exception {
        try (ServerProcess server = new ServerProcess(data).start();
                TenureClient client = TenureClient.builder()
                        .endpoints(server.endpoint())
                        .sessionTtl(Duration.ofSeconds(30))
                        .build();
                Session session = client.openSession()) {
            Lease held = session.acquire("restart-lock");
            session.kv().put("restart-key", bytes("v1"), held.lock(), held.token());
            long lastToken = held.token();
            for (int i = 0; i < 5; i++) {
                try (Lease cycle = session.acquire("restart-cycle")) {
                    lastToken = cycle.token();
                }
            }
            ManagedChannel raw = NettyChannelBuilder.forTarget(server.endpoint())
                    .usePlaintext()
                    .build();
            RawSession rawSession = openRaw(raw);
            AcquireResponse original = TenureGrpc.newBlockingStub(raw)
                    .acquire(AcquireRequest.newBuilder()
                            .setSessionId(rawSession.id())
                            .setSessionSecret(rawSession.secret())
                            .setRequestId(7)
                            .setLock("restart-retry")
                            .setWaitMs(0)
                            .build());
            assertThat(original.getCode()).isEqualTo(Code.CODE_OK);
            lastToken = Math.max(lastToken, original.getGrant().getToken());

            server.kill9();
            raw.shutdownNow(); // after the kill: no gateway is left to see this connection close
            server.start();

            // The raw session's connection closed when the old process died, but no gateway
            // saw it close, so the session lives until its TTL: a retry returns the same grant.
            ManagedChannel again = NettyChannelBuilder.forTarget(server.endpoint())
                    .usePlaintext()
                    .build();
            try {
                AcquireResponse retried = TenureGrpc.newBlockingStub(again)
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .acquire(AcquireRequest.newBuilder()
                                .setSessionId(rawSession.id())
                                .setSessionSecret(rawSession.secret())
                                .setRequestId(7)
                                .setLock("restart-retry")
                                .setWaitMs(0)
                                .build());
                assertThat(retried.getGrant()).isEqualTo(original.getGrant());
            } finally {
                again.shutdownNow();
            }

            KvEntry value = client.kv().get("restart-key").orElseThrow();
            assertThat(new String(value.value(), StandardCharsets.UTF_8)).isEqualTo("v1");
            assertThat(value.token()).isEqualTo(held.token());

            var status = client.status("restart-lock");
            assertThat(status.holder()).isPresent();
            assertThat(status.holder().get().token()).isEqualTo(held.token());
            assertThat(status.holder().get().sessionId()).isEqualTo(session.id());

            try (Session other = client.openSession()) {
                assertThat(other.tryAcquire("restart-lock"))
                        .as("the held lease survived the restart")
                        .isEmpty();
                try (Lease fresh = other.acquire("restart-new")) {
                    assertThat(fresh.token()).as("tokens never go backwards").isGreaterThan(lastToken);
                }
            }
            // The holder resumes its session on the restarted node and holds a valid lease again:
            // fence waits for that resume (until then no stream proves the session, so the lease
            // is in doubt, not lost).
            assertThat(held.fence(Duration.ofMillis(500))).isEqualTo(held.token());
            assertThat(held.isValid()).isTrue();
            assertThat(held.lost()).isNotDone();
        }
    }

    /** The session opened raw, and the secret its requests must show. */
    private record RawSession(long id, ByteString secret) {}

    private static RawSession openRaw(ManagedChannel channel) throws InterruptedException {
        BlockingQueue<AttachResponse> got = new LinkedBlockingQueue<>();
        StreamObserver<AttachRequest> out = TenureGrpc.newStub(channel).attach(new StreamObserver<>() {
            @Override
            public void onNext(AttachResponse value) {
                got.add(value);
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        out.onNext(AttachRequest.newBuilder()
                .setOpen(AttachRequest.Open.newBuilder().setTtlMs(60_000).setClientName("raw"))
                .build());
        AttachResponse opened = got.poll(30, TimeUnit.SECONDS);
        assertThat(opened).isNotNull();
        return new RawSession(
                opened.getOpened().getSessionId(), opened.getOpened().getSessionSecret());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
