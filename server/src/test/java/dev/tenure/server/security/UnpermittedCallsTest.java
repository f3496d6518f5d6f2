package dev.tenure.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.BackupRequest;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.DowngradeRequest;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.LeaderRequest;
import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.Policy;
import dev.tenure.api.v1.ProclaimRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WatchRequest;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.gateway.Acl;
import dev.tenure.gateway.Permission;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.AnyCall;
import dev.tenure.server.TenureServer;
import dev.tenure.server.TestPorts;
import dev.tenure.server.TestTimings;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import dev.tenure.testkit.tls.TestCertificates;
import dev.tenure.testkit.tls.TestCertificates.Authority;
import dev.tenure.testkit.tls.TestCertificates.Credential;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every rpc of tenure.proto, called by a client that a node with an ACL grants nothing: each call
 * is refused, and the node's state is as it was before (read by a principal allowed everything).
 *
 * <p>The table has one row per rpc, found by name in the service descriptor: an rpc that tenure.proto
 * gains without a row here fails {@link #everyRpcOfTenureProtoHasARow}, and so does a kind of call
 * that a Calls stream gains without a unary row to carry. Each case of a row carries what a thief
 * could have: the genuine id and secret of a session that holds a lock, and its current token; so
 * the only thing between the call and a change is the permission check, and a check removed shows
 * as a changed state, not as an error the node would have returned anyway.
 *
 * <p>Two callers: a certificate from the node's CA whose CN the ACL does not name (refused by the
 * gateway, PERMISSION_DENIED naming the principal), and a client with no certificate at all
 * (refused by the TLS handshake, UNAVAILABLE, before any handler: an ACL needs mTLS, so no call
 * without a principal reaches a node with an ACL).
 *
 * <p>To extend: a new rpc is one entry in {@link #ROWS}; a case whose expected refusal depends on
 * another setting (forced release without an ACL) belongs in the test of that setting.
 */
class UnpermittedCallsTest {
    private static final String HELD = "guarded/held";
    private static final String FREE = "guarded/free";
    private static final String KEY = "guarded/key";
    private static final String OPS = "ops";
    private static final String STRANGER = "stranger";

    private static Path dir;
    private static Authority ca;
    private static TenureServer server;
    private static final RecordedFatals fatals = new RecordedFatals();
    private static final List<ManagedChannel> channels = new ArrayList<>();
    private static ManagedChannel ops;
    /** The ops session's stream, open for the whole class: the session lives and holds HELD. */
    private static StreamObserver<AttachRequest> opsStream;

    private static long session;
    private static ByteString secret;
    private static long token;

    /** One case: a request of one rpc, and what it shows in the test's name. */
    record Case(String what, Message request) {}

    /**
     * The table: each rpc of tenure.proto and its cases, in the proto's order. The Calls stream's
     * cases are the unary cases it can carry, computed from this table.
     */
    private static final Map<String, Function<Setup, List<Case>>> ROWS = new LinkedHashMap<>();
    /** The rpcs any principal may make: they name no lock, key or session and read no state. */
    private static final Set<String> OPEN = Set.of("Leader");

    /** What a case may name: the ops session, its secret and its lease's token. */
    record Setup(long session, ByteString secret, long token) {}

    static {
        ROWS.put(
                "Attach",
                s -> List.of(
                        new Case("open a session", open()),
                        new Case("resume the holder's session with its secret", resume(s))));
        ROWS.put(
                "AttachMany",
                s -> List.of(
                        new Case("open a session", frames(open())),
                        new Case("resume the holder's session with its secret", frames(resume(s)))));
        ROWS.put("Calls", UnpermittedCallsTest::carried);
        ROWS.put(
                "Acquire",
                s -> List.of(
                        new Case(
                                "a free lock, on the holder's session",
                                AcquireRequest.newBuilder()
                                        .setSessionId(s.session())
                                        .setSessionSecret(s.secret())
                                        .setRequestId(1_000)
                                        .setLock(FREE)
                                        .build()),
                        new Case(
                                "the held lock, waiting",
                                AcquireRequest.newBuilder()
                                        .setSessionId(s.session())
                                        .setSessionSecret(s.secret())
                                        .setRequestId(1_001)
                                        .setLock(HELD)
                                        .setWaitMs(-1)
                                        .setPolicy(Policy.newBuilder().setLockDelayMs(60_000))
                                        .build())));
        ROWS.put(
                "Release",
                s -> List.of(
                        new Case("owner-bound, with the holder's session and token", release(s, false)),
                        new Case("forced", release(s, true))));
        ROWS.put(
                "RenewLease",
                s -> List.of(new Case(
                        "the holder's lease",
                        RenewLeaseRequest.newBuilder()
                                .setSessionId(s.session())
                                .setSessionSecret(s.secret())
                                .setRequestId(1_004)
                                .setLock(HELD)
                                .setToken(s.token())
                                .build())));
        ROWS.put(
                "Downgrade",
                s -> List.of(new Case(
                        "the holder's lease",
                        DowngradeRequest.newBuilder()
                                .setSessionId(s.session())
                                .setSessionSecret(s.secret())
                                .setRequestId(1_008)
                                .setLock(HELD)
                                .setToken(s.token())
                                .build())));
        ROWS.put(
                "Proclaim",
                s -> List.of(new Case(
                        "the holder's new value",
                        ProclaimRequest.newBuilder()
                                .setSessionId(s.session())
                                .setSessionSecret(s.secret())
                                .setRequestId(1_009)
                                .setLock(HELD)
                                .setToken(s.token())
                                .setValue(com.google.protobuf.ByteString.copyFromUtf8("v"))
                                .build())));
        ROWS.put(
                "WriteCheckpoint",
                s -> List.of(new Case(
                        "under the holder's token",
                        WriteCheckpointRequest.newBuilder()
                                .setSessionId(s.session())
                                .setSessionSecret(s.secret())
                                .setRequestId(1_005)
                                .setLock(HELD)
                                .setToken(s.token())
                                .setValue(ByteString.copyFromUtf8("stolen"))
                                .build())));
        ROWS.put(
                "LockStatus",
                s -> List.of(new Case(
                        "the held lock",
                        LockStatusRequest.newBuilder().setLock(HELD).build())));
        ROWS.put(
                "ListLocks",
                s -> List.of(
                        new Case("every name", ListLocksRequest.getDefaultInstance()),
                        new Case(
                                "the held lock's own name as the prefix",
                                ListLocksRequest.newBuilder().setPrefix(HELD).build())));
        ROWS.put("Watch", UnpermittedCallsTest::watchCases);
        ROWS.put("WatchBatches", UnpermittedCallsTest::watchCases);
        ROWS.put(
                "KvPut",
                s -> List.of(
                        new Case(
                                "fenced by the holder's token",
                                KvPutRequest.newBuilder()
                                        .setSessionId(s.session())
                                        .setSessionSecret(s.secret())
                                        .setRequestId(1_006)
                                        .setKey(KEY)
                                        .setValue(ByteString.copyFromUtf8("stolen"))
                                        .setFence(fence(s))
                                        .build()),
                        new Case(
                                "unfenced, overriding the fence",
                                KvPutRequest.newBuilder()
                                        .setKey(KEY)
                                        .setValue(ByteString.copyFromUtf8("stolen"))
                                        .setOverrideFence(true)
                                        .build())));
        ROWS.put(
                "KvGet",
                s -> List.of(new Case(
                        "a fenced key", KvGetRequest.newBuilder().setKey(KEY).build())));
        ROWS.put(
                "KvDelete",
                s -> List.of(
                        new Case(
                                "fenced by the holder's token",
                                KvDeleteRequest.newBuilder()
                                        .setSessionId(s.session())
                                        .setSessionSecret(s.secret())
                                        .setRequestId(1_007)
                                        .setKey(KEY)
                                        .setFence(fence(s))
                                        .build()),
                        new Case(
                                "unfenced, overriding the fence",
                                KvDeleteRequest.newBuilder()
                                        .setKey(KEY)
                                        .setOverrideFence(true)
                                        .build())));
        ROWS.put(
                "Backup",
                s -> List.of(new Case(
                        "the whole state: every name, holder, token and value", BackupRequest.getDefaultInstance())));
        ROWS.put(
                "ServerStatus",
                s -> List.of(
                        new Case("the node's status", ServerStatusRequest.getDefaultInstance()),
                        new Case(
                                "with a state digest",
                                ServerStatusRequest.newBuilder()
                                        .setStateDigest(true)
                                        .build())));
    }

    private static AttachRequest open() {
        return AttachRequest.newBuilder()
                .setOpen(AttachRequest.Open.newBuilder().setTtlMs(60_000).setClientName("stranger"))
                .build();
    }

    private static AttachRequest resume(Setup s) {
        return AttachRequest.newBuilder()
                .setResume(AttachRequest.Resume.newBuilder()
                        .setSessionId(s.session())
                        .setSessionSecret(s.secret()))
                .build();
    }

    private static AttachFrames frames(AttachRequest request) {
        return AttachFrames.newBuilder()
                .addFrames(AttachFrame.newBuilder().setRef(1).setRequest(request))
                .build();
    }

    private static ReleaseRequest release(Setup s, boolean force) {
        return ReleaseRequest.newBuilder()
                .setSessionId(s.session())
                .setSessionSecret(s.secret())
                .setRequestId(force ? 1_003 : 1_002)
                .setLock(HELD)
                .setToken(s.token())
                .setForce(force)
                .build();
    }

    private static Fence fence(Setup s) {
        return Fence.newBuilder().setLock(HELD).setToken(s.token()).build();
    }

    /** The kinds of call a Calls stream carries (all but Cancel), each field by the type of its request. */
    private static Map<String, FieldDescriptor> carriedKinds() {
        return CallRequest.getDescriptor().getOneofs().get(0).getFields().stream()
                .filter(f -> f.getType() == FieldDescriptor.Type.MESSAGE)
                .filter(f -> f.getNumber() != CallRequest.CANCEL_FIELD_NUMBER)
                .collect(Collectors.toMap(
                        f -> f.getMessageType().getFullName(), f -> f, (a, b) -> a, LinkedHashMap::new));
    }

    /** Every unary case whose request a Calls stream can carry, carried as a frame. */
    private static List<Case> carried(Setup s) {
        Map<String, FieldDescriptor> kinds = carriedKinds();
        List<Case> cases = new ArrayList<>();
        for (Map.Entry<String, Function<Setup, List<Case>>> row : ROWS.entrySet()) {
            if (row.getKey().equals("Calls")) {
                continue;
            }
            for (Case c : row.getValue().apply(s)) {
                FieldDescriptor kind =
                        kinds.get(c.request().getDescriptorForType().getFullName());
                if (kind != null) {
                    cases.add(new Case(
                            row.getKey() + ", " + c.what(),
                            CallRequest.newBuilder()
                                    .setId(1)
                                    .setField(kind, c.request())
                                    .build()));
                }
            }
        }
        return cases;
    }

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("tenure-unpermitted-");
        TestCertificates pki = new TestCertificates(dir.resolve("pki"));
        ca = pki.authority("tenure-test-ca");
        Credential node = ca.server("node-0", "127.0.0.1");
        Acl acl = Acl.of(Map.of(OPS, List.of(new Acl.Grant("", EnumSet.allOf(Permission.class)))));
        ServerConfig config = ServerConfig.member(
                        0,
                        List.of(new ServerConfig.Member(
                                0, "127.0.0.1", LoopbackPorts.freeTcpPort(), TestPorts.freeAeronPortBase())),
                        dir.resolve("data"),
                        0)
                .with(TestTimings::apply)
                .withTls(new TlsFiles(node.certificate(), node.key(), ca.certificate()));
        server = TenureServer.start(config, fatals, acl);
        ops = channel(ca.client(OPS));
        Await.atMost(Duration.ofSeconds(30))
                .every(Duration.ofMillis(50))
                .until(
                        "node healthy",
                        () -> stub().serverStatus(ServerStatusRequest.getDefaultInstance()),
                        s -> "ok".equals(s.getHealth()));
        holdTheLockAndWriteUnderIt();
    }

    /** The state the cases aim at: a session holding HELD, a checkpoint and a key fenced by its token. */
    private static void holdTheLockAndWriteUnderIt() throws InterruptedException {
        BlockingQueue<AttachResponse> answers = new LinkedBlockingQueue<>();
        opsStream = TenureGrpc.newStub(ops).attach(new StreamObserver<>() {
            @Override
            public void onNext(AttachResponse value) {
                answers.add(value);
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
        });
        // Long enough to outlive the class without a renewal: a keepalive would change nothing
        // the cases read, but the session must not end while they run.
        opsStream.onNext(AttachRequest.newBuilder()
                .setOpen(AttachRequest.Open.newBuilder().setTtlMs(600_000).setClientName(OPS))
                .build());
        AttachResponse opened =
                answers.poll(TimeScale.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(opened).as("the ops session opens").isNotNull();
        session = opened.getOpened().getSessionId();
        secret = opened.getOpened().getSessionSecret();
        var grant = stub().acquire(AcquireRequest.newBuilder()
                .setSessionId(session)
                .setSessionSecret(secret)
                .setRequestId(1)
                .setLock(HELD)
                .build());
        assertThat(grant.getCode()).isEqualTo(Code.CODE_OK);
        token = grant.getGrant().getToken();
        assertThat(stub().writeCheckpoint(WriteCheckpointRequest.newBuilder()
                                .setSessionId(session)
                                .setSessionSecret(secret)
                                .setRequestId(2)
                                .setLock(HELD)
                                .setToken(token)
                                .setValue(ByteString.copyFromUtf8("genuine"))
                                .build())
                        .getCode())
                .isEqualTo(Code.CODE_OK);
        assertThat(stub().kvPut(KvPutRequest.newBuilder()
                                .setSessionId(session)
                                .setSessionSecret(secret)
                                .setRequestId(3)
                                .setKey(KEY)
                                .setValue(ByteString.copyFromUtf8("genuine"))
                                .setFence(Fence.newBuilder().setLock(HELD).setToken(token))
                                .build())
                        .getCode())
                .isEqualTo(Code.CODE_OK);
    }

    @AfterAll
    static void stop() throws Exception {
        if (opsStream != null) {
            opsStream.onCompleted();
        }
        channels.forEach(ManagedChannel::shutdownNow);
        if (server != null) {
            server.close();
        }
        if (dir != null) {
            Dirs.deleteTree(dir);
        }
        assertThat(fatals.lines()).as("fatal errors on the node").isEmpty();
    }

    @Test
    void everyRpcOfTenureProtoHasARow() {
        Set<String> rpcs = TenureGrpc.getServiceDescriptor().getMethods().stream()
                .map(MethodDescriptor::getBareMethodName)
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> known = new TreeSet<>(ROWS.keySet());
        known.addAll(OPEN);
        assertThat(known)
                .as("rows of the table and open rpcs; an rpc in neither is not known to be refused without permission")
                .isEqualTo(rpcs);
        Setup any = new Setup(1, ByteString.copyFromUtf8("s"), 1);
        Set<String> carriedByARow = ROWS.values().stream()
                .flatMap(row -> row.apply(any).stream())
                .map(c -> c.request().getDescriptorForType().getFullName())
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(carriedByARow)
                .as("every kind of call a Calls stream carries has a unary row to carry")
                .containsAll(carriedKinds().keySet());
        for (Map.Entry<String, Function<Setup, List<Case>>> row : ROWS.entrySet()) {
            assertThat(row.getValue().apply(any)).as("cases of " + row.getKey()).isNotEmpty();
        }
    }

    @TestFactory
    Stream<DynamicTest> aPrincipalTheAclDoesNotNameIsRefusedEveryCallAndNothingChanges() throws Exception {
        ManagedChannel stranger = channel(ca.client(STRANGER));
        return cases((rpc, c) -> DynamicTest.dynamicTest(rpc + ": " + c.what(), () -> {
            Status refusal = refusedWithoutChange(stranger, rpc, c);
            assertThat(refusal.getCode()).as(refusal.toString()).isEqualTo(Status.Code.PERMISSION_DENIED);
            assertThat(refusal.getDescription()).contains("principal " + STRANGER);
        }));
    }

    @Test
    void aPrincipalTheAclDoesNotNameIsToldOnlyWhichEndpointLeads() throws Exception {
        ManagedChannel stranger = channel(ca.client(STRANGER));
        String before = state();
        LeaderResponse answer = TenureGrpc.newBlockingStub(stranger)
                .withDeadlineAfter(TimeScale.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS)
                .leader(LeaderRequest.getDefaultInstance());
        assertThat(answer.getLeaderId()).isZero();
        assertThat(answer.getEndpoint()).isEqualTo("127.0.0.1:" + server.port());
        assertThat(state()).as("the node's state after Leader").isEqualTo(before);
        AnyCall.Outcome anonymous = AnyCall.call(channel(null), "Leader", LeaderRequest.getDefaultInstance());
        assertThat(anonymous.refusal().getCode())
                .as("without a certificate the connection itself is refused")
                .isEqualTo(Status.Code.UNAVAILABLE);
    }

    @TestFactory
    Stream<DynamicTest> aClientWithoutACertificateIsRefusedEveryCallAndNothingChanges() throws Exception {
        ManagedChannel anonymous = channel(null);
        return cases((rpc, c) -> DynamicTest.dynamicTest(rpc + ": " + c.what(), () -> {
            Status refusal = refusedWithoutChange(anonymous, rpc, c);
            assertThat(refusal.getCode()).as(refusal.toString()).isEqualTo(Status.Code.UNAVAILABLE);
        }));
    }

    private interface CaseTest {
        DynamicTest of(String rpc, Case c);
    }

    private static Stream<DynamicTest> cases(CaseTest test) {
        Setup setup = new Setup(session, secret, token);
        return ROWS.entrySet().stream()
                .flatMap(row -> row.getValue().apply(setup).stream().map(c -> test.of(row.getKey(), c)));
    }

    /** Calls {@code rpc} with the case's request; returns its refusal, having checked that the state did not move. */
    private static Status refusedWithoutChange(ManagedChannel caller, String rpc, Case c) throws Exception {
        String before = state();
        AnyCall.Outcome outcome = AnyCall.call(caller, rpc, c.request());
        String after = state();
        assertThat(after).as("the node's state after %s: %s", rpc, c.what()).isEqualTo(before);
        Status refusal = outcome.refusal();
        assertThat(refusal.isOk())
                .as("%s (%s) answered: %s", rpc, c.what(), outcome.answers())
                .isFalse();
        return refusal;
    }

    /**
     * What any case could change, as the ops principal reads it: the node's counts (sessions,
     * locks, held, last token, stale writes), the two locks (holder, waiters, history, checkpoint,
     * lock delay, stale writes) and the key. Times of the reads themselves are left out.
     */
    private static String state() {
        ServerStatusResponse s = stub().serverStatus(ServerStatusRequest.getDefaultInstance());
        String counts = "sessions=" + s.getSessions() + " locks=" + s.getLocks() + " held=" + s.getHeld()
                + " lastToken=" + s.getLastToken() + " staleWrites=" + s.getStaleWritesRejected();
        return counts + "\n" + lock(HELD) + "\n" + lock(FREE) + "\n"
                + stub().kvGet(KvGetRequest.newBuilder().setKey(KEY).build());
    }

    private static String lock(String name) {
        return stub().lockStatus(LockStatusRequest.newBuilder().setLock(name).build()).toBuilder()
                .clearNowMs()
                .build()
                .toString();
    }

    private static TenureGrpc.TenureBlockingStub stub() {
        return TenureGrpc.newBlockingStub(ops)
                .withDeadlineAfter(TimeScale.scaled(Duration.ofSeconds(30)).toMillis(), TimeUnit.MILLISECONDS);
    }

    /** A TLS channel to the node trusting its CA, presenting {@code credential} (null: none). */
    private static ManagedChannel channel(Credential credential) throws Exception {
        SslContextBuilder b =
                GrpcSslContexts.forClient().trustManager(ca.certificate().toFile());
        if (credential != null) {
            b.keyManager(credential.certificate().toFile(), credential.key().toFile());
        }
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port())
                .sslContext(b.build())
                .build();
        channels.add(channel);
        return channel;
    }

    private static List<Case> watchCases(Setup unusedSetup) {
        return List.of(
                new Case(
                        "the held lock", WatchRequest.newBuilder().setName(HELD).build()),
                new Case(
                        "the held lock's prefix, from revision 0",
                        WatchRequest.newBuilder()
                                .setPrefix("guarded/")
                                .setFromRevision(0)
                                .build()));
    }
}
