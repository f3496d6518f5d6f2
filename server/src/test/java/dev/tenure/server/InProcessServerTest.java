package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One real node in this JVM (Aeron media driver, archive, consensus module, clustered service,
 * gRPC gateway) driven through the wire contract. Process-level faults (kill -9, SIGSTOP) are
 * tested in the cli module against real server processes.
 */
public class InProcessServerTest {

    @RegisterExtension
    static final NodeExtension node = NodeExtension.lone();

    /** A session stream driven by hand. */
    public static final class SessionStream implements StreamObserver<AttachResponse> {
        final BlockingQueue<AttachResponse> received = new LinkedBlockingQueue<>();
        public final BlockingQueue<Throwable> errors = new LinkedBlockingQueue<>();
        public final StreamObserver<AttachRequest> out;

        public SessionStream() {
            this(node.channel());
        }

        public SessionStream(ManagedChannel over) {
            out = TenureGrpc.newStub(over).attach(this);
        }

        public long open(long ttlMs) throws InterruptedException {
            return open(ttlMs, 0);
        }

        public long open(long ttlMs, long graceMs) throws InterruptedException {
            out.onNext(AttachRequest.newBuilder()
                    .setOpen(AttachRequest.Open.newBuilder()
                            .setTtlMs(ttlMs)
                            .setClientName("test")
                            .setDisconnectGraceMs(graceMs))
                    .build());
            AttachResponse r = next();
            assertThat(r.hasOpened()).as("opened: %s", r).isTrue();
            Secrets.opened(r.getOpened());
            return r.getOpened().getSessionId();
        }

        public AttachResponse next() throws InterruptedException {
            AttachResponse r = received.poll(10, TimeUnit.SECONDS);
            assertThat(r).as("a message on the session stream").isNotNull();
            return r;
        }

        @Override
        public void onNext(AttachResponse value) {
            received.add(value);
        }

        @Override
        public void onError(Throwable t) {
            errors.add(t);
        }

        @Override
        public void onCompleted() {}
    }

    @Test
    void grantsReleasesAndHandsOverInFifoOrder() throws Exception {
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        SessionStream b = new SessionStream();
        long sb = b.open(10_000);

        AcquireResponse first = node.stub().acquire(acquire(sa, 1, "fifo", 0));
        assertThat(first.getCode()).isEqualTo(Code.CODE_OK);
        assertThat(first.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_NONE);

        AcquireResponse busy = node.stub().acquire(acquire(sb, 1, "fifo", 0));
        assertThat(busy.getCode()).isEqualTo(Code.CODE_HELD);
        assertThat(busy.getHolderToken()).isEqualTo(first.getGrant().getToken());

        var waiting = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(sb, 2, "fifo", -1));
        Pause.forMillis(100); // a chance to answer early, which it must not take
        assertThat(waiting.isDone()).as("second acquire waits on the server").isFalse();

        var stale = node.stub().release(release(sa, 2, "fifo", first.getGrant().getToken() - 1));
        assertThat(stale.getCode()).isEqualTo(Code.CODE_NOT_OWNER);
        assertThat(stale.getCurrentToken()).isEqualTo(first.getGrant().getToken());

        assertThat(node.stub()
                        .release(release(sa, 3, "fifo", first.getGrant().getToken()))
                        .getCode())
                .isEqualTo(Code.CODE_OK);
        AcquireResponse handed = waiting.get(10, TimeUnit.SECONDS);
        assertThat(handed.getCode()).isEqualTo(Code.CODE_OK);
        assertThat(handed.getGrant().getToken()).isGreaterThan(first.getGrant().getToken());
        assertThat(handed.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_RELEASED);
        assertThat(handed.getGrant().getPreviousToken())
                .isEqualTo(first.getGrant().getToken());

        // A retry of the same request id returns the original grant, not a new one.
        assertThat(node.stub().acquire(acquire(sb, 2, "fifo", -1)).getGrant()).isEqualTo(handed.getGrant());

        var status = node.stub()
                .lockStatus(LockStatusRequest.newBuilder().setLock("fifo").build());
        assertThat(status.getHolder().getSessionId()).isEqualTo(sb);
        assertThat(status.getHistoryList())
                .extracting(h -> h.getToken())
                .containsExactly(first.getGrant().getToken());
    }

    @Test
    void aSessionIdWithoutItsSecretActsForNoOneAndChangesNothing() throws Exception {
        SessionStream victim = new SessionStream();
        long sv = victim.open(10_000);
        AcquireResponse held = node.stub().acquire(acquire(sv, 1, "owned", 0));
        assertThat(held.getCode()).isEqualTo(Code.CODE_OK);
        long token = held.getGrant().getToken();

        // Another client knows the id and the token (lock status shows both), not the secret.
        AcquireResponse acquired = node.stub()
                .acquire(acquire(sv, 2, "other", 0).toBuilder()
                        .setSessionSecret(ByteString.copyFromUtf8("guess"))
                        .build());
        assertThat(acquired.getCode()).isEqualTo(Code.CODE_DENIED);
        assertThat(acquired.getMessage()).contains("belongs to another client");
        ReleaseResponse released = node.stub()
                .release(release(sv, 3, "owned", token).toBuilder()
                        .clearSessionSecret()
                        .build());
        assertThat(released.getCode()).isEqualTo(Code.CODE_DENIED);

        SessionStream thief = new SessionStream();
        thief.out.onNext(AttachRequest.newBuilder()
                .setResume(AttachRequest.Resume.newBuilder().setSessionId(sv).setDisconnectGraceMs(1_000))
                .build());
        Throwable refused = thief.errors.poll(10, TimeUnit.SECONDS);
        assertThat(Status.fromThrowable(refused).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);

        var status = node.stub()
                .lockStatus(LockStatusRequest.newBuilder().setLock("owned").build());
        assertThat(status.getHolder().getSessionId()).as("still the victim's").isEqualTo(sv);
        assertThat(status.getHolder().getToken()).isEqualTo(token);
        victim.out.onNext(AttachRequest.newBuilder()
                .setKeepAlive(AttachRequest.KeepAlive.newBuilder().setSeq(1))
                .build());
        assertThat(victim.next().getAck().getSeq())
                .as("the victim's stream still carries its session")
                .isEqualTo(1);
        assertThat(node.stub().release(release(sv, 4, "owned", token)).getCode())
                .as("its owner, with the secret, still can")
                .isEqualTo(Code.CODE_OK);
    }

    @Test
    void closedConnectionEndsTheSessionAtOnce() throws Exception {
        ManagedChannel own = node.newChannel();
        BlockingQueue<AttachResponse> got = new LinkedBlockingQueue<>();
        var out = TenureGrpc.newStub(own).attach(new StreamObserver<>() {
            @Override
            public void onNext(AttachResponse v) {
                got.add(v);
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        out.onNext(AttachRequest.newBuilder()
                .setOpen(AttachRequest.Open.newBuilder().setTtlMs(60_000))
                .build());
        AttachResponse.Opened holderOpened = got.poll(10, TimeUnit.SECONDS).getOpened();
        Secrets.opened(holderOpened);
        long holder = holderOpened.getSessionId();
        AcquireResponse held = TenureGrpc.newBlockingStub(own).acquire(acquire(holder, 1, "crash", 0));
        assertThat(held.getCode()).isEqualTo(Code.CODE_OK);

        SessionStream waiter = new SessionStream();
        long sw = waiter.open(10_000);
        var waiting = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(sw, 1, "crash", -1));
        long start = System.nanoTime();
        own.shutdownNow(); // the connection closes, as when the holder's process dies
        AcquireResponse next = waiting.get(10, TimeUnit.SECONDS);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(next.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
        assertThat(next.getGrant().getPreviousToken()).isEqualTo(held.getGrant().getToken());
        assertThat(tookMs).as("handover without waiting for the 60 s TTL").isLessThan(30_000);
    }

    /**
     * With a disconnect grace, a closed connection does not end the session at once: a resume on
     * a new connection within the grace keeps it with its lease (a reset, not a death), and the
     * old connection's close changes nothing; once a connection closes for good, the session ends
     * after the grace and the lock passes on as DISCONNECTED.
     */
    @Test
    void aSessionWithAGraceSurvivesAResetConnectionAndEndsAfterTheGraceOtherwise() throws Exception {
        ManagedChannel first = node.newChannel();
        SessionStream a = new SessionStream(first);
        long holder = a.open(60_000, 1_500);
        AcquireResponse held = TenureGrpc.newBlockingStub(first).acquire(acquire(holder, 1, "grace", 0));
        assertThat(held.getCode()).isEqualTo(Code.CODE_OK);
        SessionStream waiter = new SessionStream();
        long sw = waiter.open(10_000);
        var waiting = TenureGrpc.newFutureStub(node.channel()).acquire(acquire(sw, 1, "grace", -1));

        first.shutdownNow(); // the connection is reset while the holder lives
        ManagedChannel second = node.newChannel();
        SessionStream resumed = new SessionStream(second);
        resumed.out.onNext(AttachRequest.newBuilder()
                .setResume(AttachRequest.Resume.newBuilder()
                        .setSessionId(holder)
                        .setSessionSecret(Secrets.of(holder))
                        .setDisconnectGraceMs(1_500))
                .build());
        AttachResponse opened = resumed.next();
        assertThat(opened.getOpened().getSessionId()).isEqualTo(holder);
        assertThat(opened.getOpened().getDisconnectGraceMs()).isEqualTo(1_500);
        Pause.forMillis(3_000); // twice the grace: the first connection's close came and went
        assertThat(waiting.isDone())
                .as("the lock stayed with the resumed session")
                .isFalse();

        long start = System.nanoTime();
        second.shutdownNow(); // now for good
        AcquireResponse next = waiting.get(30, TimeUnit.SECONDS);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(next.getGrant().getPreviousEnd()).isEqualTo(TenureEnd.TENURE_END_DISCONNECTED);
        assertThat(next.getGrant().getPreviousToken()).isEqualTo(held.getGrant().getToken());
        assertThat(tookMs).as("not before the grace, long before the TTL").isBetween(1_400L, 30_000L);
    }

    @Test
    void aGraceLongerThanTheTtlIsRefused() throws Exception {
        for (long grace : new long[] {-1, 10_001}) {
            SessionStream s = new SessionStream();
            s.out.onNext(AttachRequest.newBuilder()
                    .setOpen(AttachRequest.Open.newBuilder().setTtlMs(10_000).setDisconnectGraceMs(grace))
                    .build());
            Throwable error = s.errors.poll(10, TimeUnit.SECONDS);
            assertThat(Status.fromThrowable(error).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(error).hasMessageContaining("disconnect_grace_ms");
        }
    }

    /**
     * A client with several endpoints gives each try of a waiting acquire part of its budget,
     * then sends the next try at once: the call the deadline cut must not take the wait with it.
     */
    @Test
    void aWaitingAcquireWhoseTryWasCutKeepsItsWaitForTheNextTry() throws Exception {
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        long held = node.stub().acquire(acquire(sa, 1, "retried", 0)).getGrant().getToken();
        SessionStream b = new SessionStream();
        long sb = b.open(10_000);
        AcquireRequest first =
                acquire(sb, 1, "retried", 60_000).toBuilder().setAttempt(1).build();
        assertThatThrownBy(() -> TenureGrpc.newBlockingStub(node.channel())
                        .withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                        .acquire(first))
                .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
        var second = TenureGrpc.newFutureStub(node.channel())
                .acquire(first.toBuilder().setAttempt(2).build());
        Pause.forMillis(2_000); // past the cut call's withdrawal
        assertThat(second.isDone()).as("still waiting").isFalse();
        assertThat(node.stub().release(release(sa, 2, "retried", held)).getCode())
                .isEqualTo(Code.CODE_OK);
        AcquireResponse granted = second.get(10, TimeUnit.SECONDS);
        assertThat(granted.getCode()).as(granted.toString()).isEqualTo(Code.CODE_OK);
        assertThat(granted.getGrant().getPreviousToken()).isEqualTo(held);
    }

    @Test
    void fencedPutAcceptsOnlyTheCurrentToken() throws Exception {
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        long old = node.stub().acquire(acquire(sa, 1, "fence", 0)).getGrant().getToken();
        assertThat(node.stub().release(release(sa, 2, "fence", old)).getCode()).isEqualTo(Code.CODE_OK);
        long token = node.stub().acquire(acquire(sa, 3, "fence", 0)).getGrant().getToken();
        var ok = node.stub().kvPut(put(sa, 4, "k", "v1", "fence", token));
        assertThat(ok.getCode()).isEqualTo(Code.CODE_OK);
        var stale = node.stub().kvPut(put(sa, 5, "k", "v2", "fence", old));
        assertThat(stale.getCode()).isEqualTo(Code.CODE_STALE_TOKEN);
        assertThat(stale.getCurrentToken()).isEqualTo(token);
        var got = node.stub().kvGet(KvGetRequest.newBuilder().setKey("k").build());
        assertThat(got.getValue().toStringUtf8()).isEqualTo("v1");
        assertThat(got.getToken()).isEqualTo(token);
    }

    @Test
    void anUnfencedWriteToAFencedKeyIsRefusedUnlessItOverridesTheFence() throws Exception {
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        long token =
                node.stub().acquire(acquire(sa, 1, "guarded", 0)).getGrant().getToken();
        assertThat(node.stub().kvPut(put(sa, 2, "gk", "v1", "guarded", token)).getCode())
                .isEqualTo(Code.CODE_OK);
        var refused = node.stub().kvPut(put(0, 0, "gk", "v2", null, 0));
        assertThat(refused.getCode()).isEqualTo(Code.CODE_KEY_FENCED);
        assertThat(refused.getMessage()).contains("fenced by lock guarded (token " + token + ")");
        var refusedDelete =
                node.stub().kvDelete(KvDeleteRequest.newBuilder().setKey("gk").build());
        assertThat(refusedDelete.getCode()).isEqualTo(Code.CODE_KEY_FENCED);
        assertThat(node.stub()
                        .kvGet(KvGetRequest.newBuilder().setKey("gk").build())
                        .getValue()
                        .toStringUtf8())
                .isEqualTo("v1");
        var overridden = node.stub()
                .kvPut(put(0, 0, "gk", "v3", null, 0).toBuilder()
                        .setOverrideFence(true)
                        .build());
        assertThat(overridden.getCode()).isEqualTo(Code.CODE_OK);
        var got = node.stub().kvGet(KvGetRequest.newBuilder().setKey("gk").build());
        assertThat(got.getValue().toStringUtf8()).isEqualTo("v3");
        assertThat(got.getToken()).isZero();
    }

    @Test
    void metricsCountStaleWritesByTargetAndCallsByMethod() throws Exception {
        // Other tests on this node write stale too, and no label says which lock: count this one's.
        String kvStale = "tenure_stale_writes_rejected_total{target=\"kv\"}";
        double kvStaleBefore = Math.max(
                0, sample(AdminScrape.get(node.server().adminPort(), "/metrics").body(), kvStale));
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        long old = node.stub().acquire(acquire(sa, 1, "metered", 0)).getGrant().getToken();
        assertThat(node.stub().release(release(sa, 2, "metered", old)).getCode())
                .isEqualTo(Code.CODE_OK);
        long token =
                node.stub().acquire(acquire(sa, 3, "metered", 0)).getGrant().getToken();
        assertThat(node.stub().kvPut(put(sa, 4, "orders", "v2", "metered", old)).getCode())
                .isEqualTo(Code.CODE_STALE_TOKEN);
        assertThat(node.stub().kvPut(put(sa, 5, "orders", "v3", "metered", old)).getCode())
                .isEqualTo(Code.CODE_STALE_TOKEN);
        assertThat(node.stub().release(release(sa, 6, "metered", token)).getCode())
                .isEqualTo(Code.CODE_OK);

        HttpResponse<String> metrics = AdminScrape.get(node.server().adminPort(), "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
        assertThat(sample(metrics.body(), kvStale)).isEqualTo(kvStaleBefore + 2);
        assertThat(metrics.body())
                .containsPattern("grpc_server_processing_duration_seconds_count\\{[^}]*method=\"KvPut\"[^}]*"
                        + "statusCode=\"OK\"[^}]*} [1-9]")
                .contains("jvm_memory_used_bytes");
        // The cluster gauges follow the once-a-second health probe; other tests write stale too.
        String body = Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(200))
                .until(
                        "the probe reporting health and stale writes",
                        () -> AdminScrape.get(node.server().adminPort(), "/metrics")
                                .body(),
                        b -> b.contains("tenure_health_ok 1.0")
                                && sample(b, "tenure_cluster_stale_writes_rejected_total") >= 2);
        assertThat(body).contains("tenure_leader 1.0").containsPattern("tenure_token_last [1-9]");
    }

    /**
     * The lone node leads, so its reads go through its read index, not the log: the counters move,
     * and every read shows the write acknowledged just before it.
     */
    @Test
    void aLeadersReadsAreAnsweredByItsReadIndexAndShowTheLastWrite() throws Exception {
        String indexed = "tenure_reads_indexed_total";
        double before =
                sample(AdminScrape.get(node.server().adminPort(), "/metrics").body(), indexed);
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        for (int i = 1; i <= 20; i++) {
            long token = node.stub()
                    .acquire(acquire(sa, 2L * i, "indexed", 0))
                    .getGrant()
                    .getToken();
            assertThat(node.stub()
                            .lockStatus(LockStatusRequest.newBuilder()
                                    .setLock("indexed")
                                    .build())
                            .getHolder()
                            .getToken())
                    .isEqualTo(token);
            assertThat(node.stub()
                            .release(release(sa, 2L * i + 1, "indexed", token))
                            .getCode())
                    .isEqualTo(Code.CODE_OK);
            assertThat(node.stub()
                            .lockStatus(LockStatusRequest.newBuilder()
                                    .setLock("indexed")
                                    .build())
                            .hasHolder())
                    .isFalse();
        }
        String body = AdminScrape.get(node.server().adminPort(), "/metrics").body();
        assertThat(sample(body, indexed)).isGreaterThanOrEqualTo(Math.max(0, before) + 40);
        assertThat(sample(body, "tenure_read_barriers_total")).isPositive();
    }

    @Test
    void badInputIsRejectedWithTheLimitNamed() {
        assertThatThrownBy(() -> node.stub().acquire(acquire(1, 1, "x".repeat(300), 0)))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("lockNameBytesMax");
                });
        assertThatThrownBy(() -> node.stub().kvPut(put(0, 0, "k", "x".repeat(70_000), null, 0)))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getDescription()).contains("valueBytesMax"));
    }

    @Test
    void statusGoesThroughTheLog() {
        var s = node.stub().serverStatus(ServerStatusRequest.getDefaultInstance());
        assertThat(s.getHealth()).isEqualTo("ok");
        assertThat(s.getLeaderId()).isEqualTo(0);
        assertThat(s.getNowMs()).isPositive();
    }

    /**
     * A status call may ask for a digest of the replica's state, which the next call reports at
     * the position it was taken; a mutation in between changes it. Digests are paced: one per 5 s
     * of cluster time, however often they are asked for.
     */
    @Test
    void aStatusCallReportsTheStateDigestTheLastOneAskedFor() throws Exception {
        ServerStatusRequest withDigest =
                ServerStatusRequest.newBuilder().setStateDigest(true).build();
        node.stub().serverStatus(withDigest);
        var first = awaitDigest(withDigest, 0);
        long firstSeen = System.nanoTime();
        assertThat(first.getReplicaStateDigest()).isNotZero();
        SessionStream a = new SessionStream();
        long sa = a.open(10_000);
        assertThat(node.stub().acquire(acquire(sa, 1, "digest", 0)).getCode()).isEqualTo(Code.CODE_OK);
        // Asked for again at once, the replica takes none: the next is due 5 s after the first.
        // (Checked only well within those 5 s of the first answer, which came after the digest.)
        while (System.nanoTime() - firstSeen < Duration.ofSeconds(2).toNanos()) {
            var again = node.stub().serverStatus(withDigest);
            if (System.nanoTime() - firstSeen < Duration.ofSeconds(2).toNanos()) {
                assertThat(again.getReplicaDigestPosition()).isEqualTo(first.getReplicaDigestPosition());
            }
        }
        var second = awaitDigest(withDigest, first.getReplicaDigestPosition());
        assertThat(second.getReplicaStateDigest()).isNotEqualTo(first.getReplicaStateDigest());
    }

    /** Asks until a digest taken after log position {@code after} comes back. */
    private static ServerStatusResponse awaitDigest(ServerStatusRequest request, long after)
            throws InterruptedException {
        return Await.atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(20))
                .until(
                        "a digest after position " + after,
                        () -> node.stub().serverStatus(request),
                        s -> s.getReplicaDigestPosition() > after);
    }

    /** The value of an unlabelled sample in a Prometheus scrape, or -1 if it is absent. */
    static double sample(String scrape, String name) {
        return scrape.lines()
                .filter(l -> l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1)))
                .findFirst()
                .orElse(-1);
    }

    public static AcquireRequest acquire(long session, long request, String lock, long waitMs) {
        return AcquireRequest.newBuilder()
                .setSessionId(session)
                .setSessionSecret(Secrets.of(session))
                .setRequestId(request)
                .setLock(lock)
                .setWaitMs(waitMs)
                .build();
    }

    public static ReleaseRequest release(long session, long request, String lock, long token) {
        return ReleaseRequest.newBuilder()
                .setSessionId(session)
                .setSessionSecret(Secrets.of(session))
                .setRequestId(request)
                .setLock(lock)
                .setToken(token)
                .build();
    }

    public static KvPutRequest put(long session, long request, String key, String value, String lock, long token) {
        KvPutRequest.Builder b = KvPutRequest.newBuilder()
                .setSessionId(session)
                .setSessionSecret(Secrets.of(session))
                .setRequestId(request)
                .setKey(key)
                .setValue(ByteString.copyFromUtf8(value));
        if (lock != null) {
            b.setFence(Fence.newBuilder().setLock(lock).setToken(token));
        }
        return b.build();
    }
}
