package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.TenureEnd;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.TenureRecord;
import dev.tenure.gateway.Acl;
import dev.tenure.gateway.AclChange;
import dev.tenure.gateway.Permission;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.InProcessServerTest;
import dev.tenure.server.Secrets;
import dev.tenure.server.TenureServer;
import dev.tenure.server.TestPorts;
import dev.tenure.server.TestTimings;
import dev.tenure.server.cluster.MonotonicClusterClock;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Revoking a principal, on three real TLS nodes in this JVM whose ACL files differ: only node 0
 * reloads (it removes the principal); nodes 1 and 2 keep the file that still names it. Each case
 * of issue 30's item 2 is one test, and each measures the safety order at the source: the time the
 * server granted the revoked holder's lock to the next holder (the grant's {@code since_ms}, in
 * the log's time) against the time the holder's client learned its lease was invalid (read on
 * the same clock, {@link MonotonicClusterClock}, which every node of this JVM stamps the log with),
 * or, for a holder that cannot hear (its connection broke), the latest its client may trust the
 * lease: the send time of its last acknowledged renewal plus the TTL.
 */
class RevocationTest {
    private static final long TTL_MS = 3_000;
    private static final long GRACE_MS = 1_500;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final List<String> PRINCIPALS =
            List.of("grace-holder", "unbound-holder", "resume-holder", "racer", "ops");

    private static Path dir;
    private static Authority ca;
    private static final Map<String, Credential> CLIENTS = new TreeMap<>();
    private static final List<TenureServer> NODES = new ArrayList<>();
    private static final RecordedFatals FATALS = new RecordedFatals();
    private final List<ManagedChannel> channels = new ArrayList<>();
    private ManagedChannel opsOnZero;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("tenure-revocation-");
        TestCertificates pki = new TestCertificates(dir.resolve("pki"));
        ca = pki.authority("tenure-test-ca");
        for (String p : PRINCIPALS) {
            CLIENTS.put(p, ca.client(p));
        }
        List<ServerConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(new ServerConfig.Member(
                    i, "127.0.0.1", LoopbackPorts.freeTcpPort(), TestPorts.freeAeronPortBase()));
        }
        for (int i = 0; i < 3; i++) {
            Credential node = ca.server("node-" + i, "127.0.0.1");
            ServerConfig config = ServerConfig.member(i, members, dir.resolve("node-" + i), LoopbackPorts.freeTcpPort())
                    .with(TestTimings::apply)
                    .withTls(new TlsFiles(node.certificate(), node.key(), ca.certificate()));
            NODES.add(TenureServer.start(config, FATALS, aclWithout(null)));
        }
        for (TenureServer n : NODES) {
            Await.atMost(Duration.ofSeconds(30))
                    .every(Duration.ofMillis(50))
                    .until("node on port " + n.port() + " healthy", n::status, s -> "ok".equals(s.getHealth()));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        for (TenureServer n : NODES) {
            n.close();
        }
        NODES.clear();
        Dirs.deleteTree(dir);
        assertThat(FATALS.lines()).as("fatal errors on the nodes").isEmpty();
    }

    @AfterEach
    void closeChannels() {
        channels.forEach(ManagedChannel::shutdownNow);
        // Node 0 names every principal again, so the next test starts from the same ACLs.
        reloadNodeZero(aclWithout(null));
    }

    /**
     * (a) A session in its disconnect grace is bound to no stream anywhere: a node-local revocation
     * missed it, and it ended DISCONNECTED at the grace's end with its lock handed on at once.
     */
    @Test
    void aSessionInItsDisconnectGraceIsRevokedAndItsLockWaitsForItsClientsHorizon() throws Exception {
        Held held = hold("grace-holder", 1, "grace/x", 2);

        held.channel().shutdownNow(); // the holder's connection breaks: node 1 starts its grace
        long revokedAt = now();
        reloadNodeZero(aclWithout("grace-holder"));

        long grantedAt = held.next().granted().getGrant().getGrantedAtMs();
        LockStatusResponse status = status("grace/x");
        TenureRecord revoked = tenureOf(status, held.token());
        long horizon = held.stream().openSentMs + TTL_MS;
        System.out.printf(
                "case (a) grace: reload sent %d, lease ended %s at %d, holder's horizon %d, next grant %d (+%d ms)%n",
                revokedAt, revoked.getEnd(), revoked.getEndedAtMs(), horizon, grantedAt, grantedAt - horizon);
        assertThat(revoked.getEnd())
                .as("revoked in its grace, not disconnected after it")
                .isEqualTo(TenureEnd.TENURE_END_REVOKED);
        assertThat(revoked.getEndedAtMs()).as("within the grace").isLessThan(revokedAt + GRACE_MS);
        assertThat(grantedAt)
                .as("the next grant comes no earlier than the cut-off holder's horizon")
                .isGreaterThanOrEqualTo(horizon);
    }

    /**
     * (b) An open that a node whose ACL still names the principal lets through is refused at apply
     * (before, it would have opened a session no reload on another node could see); the holder bound
     * on that node hears of its revocation before the next grant.
     */
    @Test
    void anOpenThroughANodeWithAnOlderAclIsRefusedAtApplyAndTheBoundHolderHearsFirst() throws Exception {
        Held held = hold("unbound-holder", 2, "unbound/x", 1);

        reloadNodeZero(aclWithout("unbound-holder"));
        Timed told = held.stream().next();
        long grantedAt = held.next().granted().getGrant().getGrantedAtMs();
        System.out.printf(
                "case (b) unbound open: holder told %s at %d, next grant %d (+%d ms)%n",
                told.response.getLeaseEnded().getEnd(), told.atMs, grantedAt, grantedAt - told.atMs);
        assertThat(told.response.getLeaseEnded().getToken()).isEqualTo(held.token());
        assertThat(told.response.getLeaseEnded().getEnd()).isEqualTo(TenureEnd.TENURE_END_REVOKED);
        assertThat(grantedAt).as("the holder hears first").isGreaterThanOrEqualTo(told.atMs);

        for (int node : new int[] {1, 2}) {
            Stream late = new Stream(channel("unbound-holder", node));
            late.send(AttachRequest.newBuilder()
                    .setOpen(AttachRequest.Open.newBuilder().setTtlMs(TTL_MS).setClientName("late"))
                    .build());
            Timed refused = late.next();
            assertThat(refused.error)
                    .as("an open through node %d, whose ACL names the principal", node)
                    .isNotNull();
            assertThat(Status.fromThrowable(refused.error).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(refused.error).hasMessageContaining("principal unbound-holder was revoked");
        }
    }

    /**
     * (c) A resume checked only that the node's ACL knew the principal: through a node whose file
     * still names it, the client took its session back from the revocation.
     */
    @Test
    void aResumeThroughANodeWhoseAclStillNamesThePrincipalGetsNothingBack() throws Exception {
        Held held = hold("resume-holder", 1, "resume/x", 2);

        reloadNodeZero(aclWithout("resume-holder"));
        Timed told = held.stream().next();
        Stream resumed = new Stream(channel("resume-holder", 2));
        resumed.resume(held.session());
        Timed answer = resumed.next();
        long grantedAt = held.next().granted().getGrant().getGrantedAtMs();
        System.out.printf(
                "case (c) resume: holder told %s at %d, resume on node 2 answered at %d (%s), next grant %d (+%d ms)%n",
                told.response.getLeaseEnded().getEnd(),
                told.atMs,
                answer.atMs,
                answer.describe(),
                grantedAt,
                grantedAt - told.atMs);
        assertThat(told.response.getLeaseEnded().getEnd()).isEqualTo(TenureEnd.TENURE_END_REVOKED);
        assertThat(answer.error)
                .as("the resume is refused: " + answer.describe())
                .isNotNull();
        assertThat(Status.fromThrowable(answer.error).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
        assertThat(answer.error).hasMessageContaining("principal resume-holder was revoked");
        assertThat(tenureOf(status("resume/x"), held.token()).getEnd()).isEqualTo(TenureEnd.TENURE_END_REVOKED);
        assertThat(grantedAt).as("the holder hears first").isGreaterThanOrEqualTo(told.atMs);
    }

    /**
     * (d) A revocation racing a resume: the holder's connection breaks and it resumes on another
     * node just as a reload revokes it. Whichever the log applies first, the session ends REVOKED,
     * the resuming stream is told, and nobody is granted the lock before that.
     */
    @Test
    void aRevocationRacingAResumeEndsTheSessionWhicheverLandsFirst() throws Exception {
        // Rounds 0 and 1 resume on a new connection (its TLS handshake first), 2 and 3 on one
        // already up, so the two entries reach the log about together; round 4 waits for the
        // resume's answer before the reload, so that order is seen at least once.
        for (int round = 0; round < 5; round++) {
            String lock = "race/" + round;
            Held held = hold("racer", 1, lock, 0);
            ManagedChannel second = channel("racer", 2);
            if (round >= 2) {
                TenureGrpc.newBlockingStub(second)
                        .withDeadlineAfter(TimeScale.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS)
                        .lockStatus(LockStatusRequest.newBuilder().setLock(lock).build());
            }

            held.channel().shutdownNow();
            Stream resumed = new Stream(second);
            resumed.resume(held.session());
            Timed early = round == 4 ? resumed.next() : null;
            AclChange change = NODES.get(0).acl(aclWithout("racer"));

            Timed answer = early != null ? early : resumed.next();
            Timed end = answer;
            if (answer.resumedOrBound()) {
                end = resumed.nextEnd();
            }
            assertThat(change.replicated().get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .isEmpty();
            long grantedAt = held.next().granted().getGrant().getGrantedAtMs();
            TenureRecord revoked = tenureOf(status(lock), held.token());
            System.out.printf(
                    "case (d) race round %d: %s; resuming client learned its end at %d (%s); lease ended %s at %d; next grant %d (+%d ms)%n",
                    round,
                    answer.resumedOrBound() ? "resume applied first" : "revocation applied first",
                    end.atMs,
                    end.describe(),
                    revoked.getEnd(),
                    revoked.getEndedAtMs(),
                    grantedAt,
                    grantedAt - end.atMs);
            assertThat(revoked.getEnd()).isEqualTo(TenureEnd.TENURE_END_REVOKED);
            assertThat(end.resumedOrBound())
                    .as("the resuming stream is told: " + end.describe())
                    .isFalse();
            assertThat(grantedAt).as("the resuming client hears first").isGreaterThanOrEqualTo(end.atMs);
            assertThat(grantedAt)
                    .as("and no grant before the horizon of the cut-off stream")
                    .isGreaterThanOrEqualTo(held.stream().openSentMs + TTL_MS);
            reloadNodeZero(aclWithout(null));
        }
    }

    // ---- the cluster's side ----

    /** Every principal with every permission on every name, but {@code removed} (null: none). */
    private static Acl aclWithout(String removed) {
        Map<String, List<Acl.Grant>> grants = new TreeMap<>();
        for (String p : PRINCIPALS) {
            if (!p.equals(removed)) {
                grants.put(p, List.of(new Acl.Grant("", EnumSet.allOf(Permission.class))));
            }
        }
        return Acl.of(grants);
    }

    private static void reloadNodeZero(Acl acl) {
        try {
            assertThat(NODES.get(0).acl(acl).replicated().get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("what the reload could not replicate")
                    .isEmpty();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static long now() {
        return MonotonicClusterClock.INSTANCE.time();
    }

    private ManagedChannel channel(String principal, int node) throws Exception {
        Credential c = CLIENTS.get(principal);
        ManagedChannel ch = NettyChannelBuilder.forAddress(
                        "127.0.0.1", NODES.get(node).port())
                .sslContext(GrpcSslContexts.forClient()
                        .trustManager(ca.certificate().toFile())
                        .keyManager(c.certificate().toFile(), c.key().toFile())
                        .build())
                .build();
        channels.add(ch);
        return ch;
    }

    private static AcquireResponse acquire(ManagedChannel over, long session, String lock) {
        AcquireResponse r = TenureGrpc.newBlockingStub(over)
                .withDeadlineAfter(TimeScale.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS)
                .acquire(InProcessServerTest.acquire(session, 1, lock, 0));
        assertThat(r.getCode()).as(r.getMessage()).isEqualTo(Code.CODE_OK);
        return r;
    }

    /**
     * A holder: {@code principal}'s session stream on {@code node}, opened with the grace, holding
     * {@code lock}, and an ops session on {@code waiterNode} queued for it.
     */
    private Held hold(String principal, int node, String lock, int waiterNode) throws Exception {
        ManagedChannel channel = channel(principal, node);
        Stream stream = new Stream(channel);
        long session = stream.open(GRACE_MS);
        long token = acquire(channel, session, lock).getGrant().getToken();
        return new Held(channel, stream, session, token, waitFor(lock, waiterNode));
    }

    private record Held(ManagedChannel channel, Stream stream, long session, long token, Waiting next) {}

    /** An ops session on {@code node} queued for {@code lock}, waiting without a bound. */
    private Waiting waitFor(String lock, int node) throws Exception {
        ManagedChannel over = channel("ops", node);
        Stream ops = new Stream(over);
        long session = ops.open(60_000, 0);
        CompletableFuture<AcquireResponse> granted = new CompletableFuture<>();
        TenureGrpc.newStub(over).acquire(InProcessServerTest.acquire(session, 1, lock, -1), new StreamObserver<>() {
            @Override
            public void onNext(AcquireResponse value) {
                granted.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                granted.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
        });
        Await.atMost(WAIT)
                .until("the waiter queued on " + lock, () -> status(lock).getWaitersCount() == 1);
        return new Waiting(granted);
    }

    private record Waiting(CompletableFuture<AcquireResponse> response) {
        AcquireResponse granted() throws Exception {
            AcquireResponse r = response.get(TimeScale.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(r.getCode()).as(r.getMessage()).isEqualTo(Code.CODE_OK);
            return r;
        }
    }

    private LockStatusResponse status(String lock) throws Exception {
        if (opsOnZero == null) {
            opsOnZero = channel("ops", 0);
        }
        return TenureGrpc.newBlockingStub(opsOnZero)
                .withDeadlineAfter(TimeScale.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS)
                .lockStatus(LockStatusRequest.newBuilder().setLock(lock).build());
    }

    private static TenureRecord tenureOf(LockStatusResponse status, long token) {
        return status.getHistoryList().stream()
                .filter(t -> t.getToken() == token)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no tenure with token " + token + " in " + status));
    }

    // ---- the client's side ----

    /** What a session stream received, and when (on the nodes' clock). */
    private record Timed(long atMs, AttachResponse response, Throwable error) {
        boolean resumedOrBound() {
            return response != null && response.hasOpened();
        }

        String describe() {
            if (error != null) {
                return Status.fromThrowable(error).getCode() + ": " + error.getMessage();
            }
            return response.getKindCase() + " "
                    + (response.hasSessionEnded() ? response.getSessionEnded().getEnd() : "");
        }
    }

    /** A session stream driven by hand, each message stamped when it arrived. */
    private static final class Stream implements StreamObserver<AttachResponse> {
        final BlockingQueue<Timed> received = new LinkedBlockingQueue<>();
        final StreamObserver<AttachRequest> out;
        volatile long openSentMs;

        Stream(ManagedChannel over) {
            out = TenureGrpc.newStub(over).attach(this);
        }

        long open(long graceMs) throws InterruptedException {
            return open(TTL_MS, graceMs);
        }

        long open(long ttlMs, long graceMs) throws InterruptedException {
            openSentMs = now();
            send(AttachRequest.newBuilder()
                    .setOpen(AttachRequest.Open.newBuilder()
                            .setTtlMs(ttlMs)
                            .setClientName("revocation-test")
                            .setDisconnectGraceMs(graceMs))
                    .build());
            Timed t = next();
            assertThat(t.resumedOrBound()).as("opened: " + t.describe()).isTrue();
            Secrets.opened(t.response.getOpened());
            return t.response.getOpened().getSessionId();
        }

        void resume(long session) {
            send(AttachRequest.newBuilder()
                    .setResume(AttachRequest.Resume.newBuilder()
                            .setSessionId(session)
                            .setSessionSecret(Secrets.of(session))
                            .setDisconnectGraceMs(GRACE_MS))
                    .build());
        }

        void send(AttachRequest request) {
            out.onNext(request);
        }

        Timed next() throws InterruptedException {
            Timed t = received.poll(TimeScale.scaled(WAIT).toMillis(), TimeUnit.MILLISECONDS);
            assertThat(t).as("a message on the session stream").isNotNull();
            return t;
        }

        /** The first message that ends what the stream carries: a LeaseEnded, SessionEnded or an error. */
        Timed nextEnd() throws InterruptedException {
            while (true) {
                Timed t = next();
                if (t.error != null || t.response.hasLeaseEnded() || t.response.hasSessionEnded()) {
                    return t;
                }
            }
        }

        @Override
        public void onNext(AttachResponse value) {
            received.add(new Timed(now(), value, null));
        }

        @Override
        public void onError(Throwable t) {
            received.add(new Timed(now(), null, t));
        }

        @Override
        public void onCompleted() {}
    }
}
