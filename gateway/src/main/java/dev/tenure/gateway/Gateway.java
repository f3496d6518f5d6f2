package dev.tenure.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.api.StreamLimits;
import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.DowngradeRequest;
import dev.tenure.api.v1.DowngradeResponse;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ProclaimRequest;
import dev.tenure.api.v1.ProclaimResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import dev.tenure.core.Limits;
import dev.tenure.log.v1.AbandonOpen;
import dev.tenure.log.v1.Event;
import dev.tenure.log.v1.ListLocks;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * What a node decides about each client request, without a transport: it validates each request's
 * shape, writes it into the log through a {@link LogPort}, and maps the reply back to where the
 * caller's answer goes. Acquires that have to wait are parked here (server-side waiting: the
 * client holds one open call, it never polls) until the state machine's WaitResolved event
 * arrives. Session streams bind a session to their connection (see {@link SessionStream}).
 *
 * <p>The server serves it over gRPC and Aeron Cluster; the simulation over its simulated network
 * and log, so that every seed runs this code and not a copy of it.
 */
public final class Gateway {
    /** How long a cut-off waiting acquire stays queued for the client's next try: see ParkedAcquire. */
    public static final long WITHDRAW_DELAY_MS = 1_000;

    /** Hears what the node's metrics and log report; every method runs on the thread that decided. */
    public interface Listener {
        /**
         * A write was rejected because its token was not the lock's current one: each is reported
         * once, by the node the writer used. {@code current} is the lock's token then, 0 if free.
         */
        default void staleWriteRejected(String lock, String target, long token, long current) {}

        /** A call carried on a Calls stream ended; a transport's own metrics hear of unary calls. */
        default void carriedCallCompleted(String method, Status.Code code, long nanos) {}

        /**
         * An acquire was answered after {@code nanos} from its arrival here: {@code result} is the
         * API's code without its prefix (GRANTED for OK), or the gRPC status of a failed call.
         */
        default void acquireAnswered(String result, long nanos) {}

        /** A session stream bound here broke without a Close: its disconnect grace starts. */
        default void sessionReset() {}

        /** A session resumed on a new stream of this node. */
        default void sessionResumed() {}
    }

    private final LogPort log;
    private final Scheduler scheduler;
    private final SessionRegistry registry = new SessionRegistry();
    private final Revoker revoker = new Revoker(this);
    private final RequestValidator validator;
    private final Listener listener;
    private final Mutation mutation;
    private final SessionSecrets secrets;
    private final int callsInFlightMax;
    /** Read by every call's check; replaced whole on a reload. */
    private volatile Acl acl = Acl.OPEN;
    /** Whether a node without an ACL lets any caller force a release: an unsafe opt-in, off by default. */
    private volatile boolean forcedReleaseWithoutAcl;
    /** Why writes that carry bytes are refused now (the node's heap is nearly full), or null. */
    private volatile Supplier<String> memory = () -> null;
    /** The node's latest view of the KV's room: puts it shows cannot fit never reach the log. */
    private volatile KvRoom kvRoom = KvRoom.NONE;

    private volatile @org.jspecify.annotations.Nullable WatchHub watchHub;
    private final WireEvents wireEvents = new WireEvents();
    /** Bounds the log bytes each client causes per second; null: unbounded (the simulation). */
    private volatile @Nullable LogRate logRate;

    private volatile ListPaging listPaging = ListPaging.DEFAULTS;
    /** Serves reads outside the log; null: reads go through the log (the simulation). */
    private volatile @Nullable ReadPort reads;

    public Gateway(LogPort log, Scheduler scheduler, Limits limits, Listener listener) {
        this(log, scheduler, limits, listener, StreamLimits.CALLS_IN_FLIGHT_MAX);
    }

    /** As above; each Calls stream carries at most {@code callsInFlightMax} calls at once. */
    public Gateway(LogPort log, Scheduler scheduler, Limits limits, Listener listener, int callsInFlightMax) {
        this(log, scheduler, limits, listener, Mutation.NONE, SessionSecrets.secure(), callsInFlightMax);
    }

    /**
     * For the simulation only: a gateway with a deliberately broken rule (or none), whose session
     * secrets come from {@code secretSource}, drawn from the run's seed so the run replays exactly.
     */
    public Gateway(
            LogPort log,
            Scheduler scheduler,
            Limits limits,
            Listener listener,
            Mutation mutation,
            RandomGenerator secretSource) {
        this(
                log,
                scheduler,
                limits,
                listener,
                mutation,
                new SessionSecrets(secretSource),
                StreamLimits.CALLS_IN_FLIGHT_MAX);
    }

    private Gateway(
            LogPort log,
            Scheduler scheduler,
            Limits limits,
            Listener listener,
            Mutation mutation,
            SessionSecrets secrets,
            int callsInFlightMax) {
        if (callsInFlightMax < 1) {
            throw new IllegalArgumentException("callsInFlightMax must be at least 1, was " + callsInFlightMax);
        }
        this.secrets = secrets;
        this.callsInFlightMax = callsInFlightMax;
        this.log = log;
        this.scheduler = scheduler;
        this.validator = new RequestValidator(limits);
        this.listener = listener;
        this.mutation = mutation;
    }

    /** Serves one Attach call, a session stream; {@code responses} is where its answers go. */
    public StreamObserver<AttachRequest> attach(StreamObserver<AttachResponse> responses) {
        return new SessionStream(this, responses);
    }

    /**
     * Each session on the stream is served by a SessionStream of its own, as on Attach; their
     * answers are sent from the scheduler's thread, so those completed together (the acks of one
     * keepalive batch) leave in one message.
     */
    public StreamObserver<AttachFrames> attachMany(StreamObserver<AttachEvents> events) {
        return new AttachDemux(this::attach, events, scheduler::soon);
    }

    /** Each unary call may also be carried as a frame of a Calls stream, and is served the same way. */
    public StreamObserver<CallRequest> calls(StreamObserver<CallResponse> responses) {
        return new CallsStream(this, responses, listener::carriedCallCompleted, callsInFlightMax);
    }

    /** A state machine event, in log order: delivered to the stream or wait it concerns, if served here. */
    public void onEvent(Event event) {
        registry.onEvent(event);
    }

    /** Sessions whose stream is attached to this gateway. */
    public int boundSessions() {
        return registry.boundSessions();
    }

    public void acquire(AcquireRequest request, Answer<AcquireResponse> answer) {
        if (validated(() -> permit(validator::acquire, request, Permission.ACQUIRE, request.getLock()), answer)) {
            new ParkedAcquire(this, request, MeteredAcquire.of(answer, listener)).start();
        }
    }

    Listener listener() {
        return listener;
    }

    public void release(ReleaseRequest request, Answer<ReleaseResponse> answer) {
        // A forced release ends another session's lease: an admin act. A release of one's own is
        // owner-bound in the state machine, and needs acquire, as taking the lease did.
        boolean forced = WireMapping.forced(request);
        Permission needed = forced ? Permission.ADMIN : Permission.ACQUIRE;
        if (validated(
                () -> {
                    permit(validator::release, request, needed, request.getLock());
                    if (forced) {
                        requireForcingAllowedWithoutAcl();
                    }
                },
                answer)) {
            LogCommand.Builder cmd =
                    LogCommand.newBuilder().setRelease(request.toBuilder().clearSessionSecret());
            call(withSecret(cmd, request.getSessionId(), request.getSessionSecret()), Reply::getRelease, answer, r -> {
                if (r.getCode() == Code.CODE_NOT_OWNER && r.getCurrentToken() != request.getToken()) {
                    listener.staleWriteRejected(request.getLock(), "release", request.getToken(), r.getCurrentToken());
                }
            });
        }
    }

    public void renewLease(RenewLeaseRequest request, Answer<RenewLeaseResponse> answer) {
        if (validated(() -> permit(validator::renewLease, request, Permission.ACQUIRE, request.getLock()), answer)) {
            LogCommand.Builder cmd =
                    LogCommand.newBuilder().setRenewLease(request.toBuilder().clearSessionSecret());
            call(
                    withSecret(cmd, request.getSessionId(), request.getSessionSecret()),
                    Reply::getRenewLease,
                    answer,
                    r -> {});
        }
    }

    public void downgrade(DowngradeRequest request, Answer<DowngradeResponse> answer) {
        if (validated(() -> permit(validator::downgrade, request, Permission.ACQUIRE, request.getLock()), answer)) {
            LogCommand.Builder cmd =
                    LogCommand.newBuilder().setDowngrade(request.toBuilder().clearSessionSecret());
            call(
                    withSecret(cmd, request.getSessionId(), request.getSessionSecret()),
                    Reply::getDowngrade,
                    answer,
                    r -> {});
        }
    }

    /** An election's leader publishes a new value: owner-bound at apply, as a release is. */
    public void proclaim(ProclaimRequest request, Answer<ProclaimResponse> answer) {
        if (validated(() -> permit(validator::proclaim, request, Permission.ACQUIRE, request.getLock()), answer)) {
            LogCommand.Builder cmd =
                    LogCommand.newBuilder().setProclaim(request.toBuilder().clearSessionSecret());
            call(
                    withSecret(cmd, request.getSessionId(), request.getSessionSecret()),
                    Reply::getProclaim,
                    answer,
                    r -> {});
        }
    }

    public void writeCheckpoint(WriteCheckpointRequest request, Answer<WriteCheckpointResponse> answer) {
        if (validated(() -> admitted(validator::checkpoint, request, Permission.WRITE, request.getLock()), answer)) {
            LogCommand.Builder cmd = LogCommand.newBuilder()
                    .setWriteCheckpoint(request.toBuilder().clearSessionSecret())
                    .setPrincipal(Principal.current().orElse(""));
            call(
                    withSecret(cmd, request.getSessionId(), request.getSessionSecret()),
                    Reply::getWriteCheckpoint,
                    answer,
                    r -> {
                        if (r.getCode() == Code.CODE_STALE_TOKEN) {
                            listener.staleWriteRejected(
                                    request.getLock(), "checkpoint", request.getToken(), r.getCurrentToken());
                        }
                    });
        }
    }

    public void lockStatus(LockStatusRequest request, Answer<LockStatusResponse> answer) {
        if (validated(() -> permit(validator::status, request, Permission.READ, request.getLock()), answer)) {
            read(LogCommand.newBuilder().setLockStatus(request), Reply::getLockStatus, answer);
        }
    }

    /**
     * One page of the lock listing, through the log like a status read. The page's count and byte
     * bounds go into the entry, so the reply never outgrows one message, whichever node applies it.
     */
    /**
     * A watch is served by this node's own replica ({@link #watchHub}), so it needs no log entry
     * and goes on through a leader change; it needs read on the name, or on every name under the
     * prefix, as a status or a listing of them would.
     */
    public void watch(
            dev.tenure.api.v1.WatchRequest request,
            io.grpc.stub.StreamObserver<dev.tenure.api.v1.WatchEvent> responses) {
        var call = (io.grpc.stub.ServerCallStreamObserver<dev.tenure.api.v1.WatchEvent>) responses;
        startWatch(request, call, () -> WatchStream.oneByOne(call, wireEvents));
    }

    /** {@link #watch} with the events several to a message. */
    public void watchBatches(
            dev.tenure.api.v1.WatchRequest request,
            io.grpc.stub.StreamObserver<dev.tenure.api.v1.WatchBatch> responses) {
        var call = (io.grpc.stub.ServerCallStreamObserver<dev.tenure.api.v1.WatchBatch>) responses;
        startWatch(request, call, () -> WatchStream.batched(call, wireEvents));
    }

    private void startWatch(
            dev.tenure.api.v1.WatchRequest request,
            io.grpc.stub.ServerCallStreamObserver<?> call,
            java.util.function.Supplier<WatchStream> stream) {
        boolean prefix = request.getName().isEmpty();
        try {
            validator.watch(request);
            if (prefix) {
                requirePrefixReadable(request.getPrefix());
            } else {
                requirePermission(Permission.READ, request.getName());
            }
        } catch (StatusRuntimeException e) {
            call.onError(e);
            return;
        }
        WatchHub hub = watchHub;
        if (hub == null) {
            // Not UNIMPLEMENTED: a client reads that as a node without WatchBatches.
            call.onError(Status.UNAVAILABLE
                    .withDescription("this node serves no watches yet: its replica has not started")
                    .asRuntimeException());
            return;
        }
        stream.get()
                .start(
                        hub,
                        prefix ? request.getPrefix() : request.getName(),
                        prefix,
                        request.hasFromRevision() ? request.getFromRevision() : WatchHub.NO_REVISION);
    }

    /** From now on, watches are served from {@code hub}: this node's replica's change feed. */
    public void watchHub(WatchHub hub) {
        watchHub = hub;
    }

    public void listLocks(ListLocksRequest request, Answer<ListLocksResponse> answer) {
        ListPaging paging = listPaging;
        if (validated(
                () -> {
                    validator.listLocks(request, paging);
                    requirePrefixReadable(request.getPrefix());
                },
                answer)) {
            int limit = request.getLimit() == 0 ? paging.listPageDefault() : request.getLimit();
            read(
                    LogCommand.newBuilder()
                            .setListLocks(ListLocks.newBuilder()
                                    .setRequest(request.toBuilder().setLimit(limit))
                                    .setBytesMax(paging.listPageBytesMax())),
                    Reply::getListLocks,
                    answer);
        }
    }

    /**
     * From now on, status reads, KV gets and listing pages are served by {@code port}, not written
     * into the log (see {@link ReadPort}).
     */
    public void reads(ReadPort port) {
        reads = port;
    }

    /** From now on, pages of the lock listing are bounded by {@code paging}. */
    public void listPaging(ListPaging paging) {
        listPaging = paging;
    }

    /**
     * A listing shows every lock under its prefix, so it needs {@code read} on every name the prefix
     * covers. {@link Acl#allowsPrefix} gives exactly that; the refusal names the prefix, or says
     * "every name" for a listing without one.
     */
    private void requirePrefixReadable(String prefix) {
        Optional<String> principal = Principal.current();
        if (!acl.allowsPrefix(principal, Permission.READ, prefix)) {
            throw Status.PERMISSION_DENIED
                    .withDescription(principal.map(x -> "principal " + x).orElse("a client without a certificate")
                            + " may not " + Permission.READ.spelling() + " "
                            + (prefix.isEmpty() ? "every name" : "every name under prefix '" + prefix + "'"))
                    .asRuntimeException();
        }
    }

    public void kvPut(KvPutRequest request, Answer<KvPutResponse> answer) {
        if (validated(
                () -> {
                    permit(validator::put, request, Permission.WRITE, request.getKey());
                    requireFenceReadable(request.hasFence(), request.getFence());
                    admitted();
                    roomFor(request);
                },
                answer)) {
            // The caller's principal goes with the write: the key counts against its quota.
            LogCommand.Builder put = LogCommand.newBuilder()
                    .setKvPut(request.toBuilder().clearSessionSecret())
                    .setPrincipal(Principal.current().orElse(""));
            call(
                    withSecret(put, request.getSessionId(), request.getSessionSecret()),
                    Reply::getKvPut,
                    answer,
                    r -> staleKvWrite(r.getCode(), request.getFence(), request.getKey(), r.getCurrentToken()));
        }
    }

    public void kvGet(KvGetRequest request, Answer<KvGetResponse> answer) {
        if (validated(() -> permit(validator::get, request, Permission.READ, request.getKey()), answer)) {
            read(LogCommand.newBuilder().setKvGet(request), Reply::getKvGet, answer);
        }
    }

    public void kvDelete(KvDeleteRequest request, Answer<KvDeleteResponse> answer) {
        if (validated(
                () -> {
                    permit(validator::delete, request, Permission.WRITE, request.getKey());
                    requireFenceReadable(request.hasFence(), request.getFence());
                },
                answer)) {
            call(
                    withSecret(
                            LogCommand.newBuilder()
                                    .setKvDelete(request.toBuilder().clearSessionSecret()),
                            request.getSessionId(),
                            request.getSessionSecret()),
                    Reply::getKvDelete,
                    answer,
                    r -> staleKvWrite(r.getCode(), request.getFence(), request.getKey(), r.getCurrentToken()));
        }
    }

    private void staleKvWrite(Code code, Fence fence, String key, long current) {
        if (code == Code.CODE_STALE_TOKEN) {
            listener.staleWriteRejected(fence.getLock(), "kv:" + key, fence.getToken(), current);
        }
    }

    // ---- what the gateway's parts share ----

    /**
     * {@code cmd}, for a request that names session {@code sessionId}, carrying the hash of the
     * secret the request showed (an empty one too: it then matches no session's). The caller has
     * cleared the secret from the request itself, so the log never holds one.
     */
    static LogCommand.Builder withSecret(LogCommand.Builder cmd, long sessionId, ByteString secret) {
        return sessionId == 0 ? cmd : cmd.setSecretHash(SessionSecrets.hash(secret));
    }

    LogPort log() {
        return log;
    }

    SessionSecrets secrets() {
        return secrets;
    }

    SessionRegistry registry() {
        return registry;
    }

    RequestValidator validator() {
        return validator;
    }

    Mutation mutation() {
        return mutation;
    }

    /** Runs {@code action} after {@code delayMs}; at once when it is 0. */
    void later(long delayMs, Runnable action) {
        if (delayMs == 0) {
            action.run();
        } else {
            scheduler.later(delayMs, action);
        }
    }

    /** Tries to end an abandoned open this many times, {@link #ABANDON_RETRY_MS} apart. */
    static final int ABANDON_ATTEMPTS = 30;

    static final long ABANDON_RETRY_MS = 1_000;

    /**
     * An open whose client was told it failed may have committed all the same (it timed out, the
     * leader changed): ends the session it may have opened, found by its secret's hash, so none
     * that nobody knows stands until its TTL. Sent until it commits, for up to about 30 s; a node
     * that stops meanwhile leaves it to the TTL.
     */
    void abandonOpen(ByteString secretHash, int attemptsLeft) {
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = log.submit(LogCommand.newBuilder()
                        .setAbandonOpen(AbandonOpen.getDefaultInstance())
                        .setSecretHash(secretHash))
                .whenComplete((reply, error) -> {
                    if (error != null && attemptsLeft > 1) {
                        later(ABANDON_RETRY_MS, () -> abandonOpen(secretHash, attemptsLeft - 1));
                    }
                });
    }

    static StatusRuntimeException unavailable(Throwable error) {
        return Status.UNAVAILABLE.withDescription(error.getMessage()).asRuntimeException();
    }

    /**
     * Validates {@code request}'s shape, then checks that the call's principal may do {@code p} on
     * {@code name}; either throws the refusal. Shape first: a name too long is bad input whoever
     * sends it.
     */
    private <Q> void permit(Consumer<Q> validate, Q request, Permission p, String name) {
        validate.accept(request);
        requirePermission(p, name);
    }

    /**
     * {@link #permit}, then refuses a write that carries bytes to keep (a KV write, a checkpoint)
     * with RESOURCE_EXHAUSTED while the node's heap is nearly full: before the log, so only this
     * node's callers are refused, and nothing changed. The rest is served: reads, deletes and
     * releases free memory or take none, and sessions, acquires and keepalives take a bounded
     * few hundred bytes each (sessionsMax, locksMax and waitersMax bound them), so locks are
     * still granted.
     */
    private <Q> void admitted(Consumer<Q> validate, Q request, Permission p, String name) {
        permit(validate, request, p, name);
        admitted();
    }

    /** The heap check of {@link #admitted(Consumer, Object, Permission, String)} alone. */
    private void admitted() {
        String refusal = memory.get();
        if (refusal != null) {
            throw Status.RESOURCE_EXHAUSTED.withDescription(refusal).asRuntimeException();
        }
    }

    /**
     * Refuses with RESOURCE_EXHAUSTED, naming the limit, a put that the node's latest view of its
     * replica shows cannot fit (kvKeysMax, kvBytesMax, or the writer's quota), so a put that could
     * only be refused is never written to the log. The view may be behind the log: commands
     * before this put may free room (a delete, a smaller value) that it has not applied yet, and
     * then this put would have fitted; the client is told which limit refused it and may retry,
     * and the retry is decided on the view that has applied them. Commands that take room never
     * make a put fit, so the view refuses no put that it shows fitting.
     */
    private void roomFor(KvPutRequest r) {
        long bytes = utf8(r.getKey())
                + r.getValue().size()
                + (r.hasFence() ? utf8(r.getFence().getLock()) : 0);
        String refusal = kvRoom.refusal(r.getKey(), bytes, Principal.current().orElse(""));
        if (refusal != null) {
            throw Status.RESOURCE_EXHAUSTED.withDescription(refusal).asRuntimeException();
        }
    }

    private static long utf8(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }

    /** From now on, puts are checked against {@code room} before the log. */
    public void kvRoom(KvRoom room) {
        kvRoom = room;
    }

    /**
     * From now on, each client (its principal, or its address without one) may add at most
     * {@code bytesPerSecondMax} bytes of commands to the log per second, with {@code nanoTime}
     * as the clock; the excess is refused RESOURCE_EXHAUSTED naming logBytesPerSecondMax.
     * Counted: every call that goes through {@link #call} (KV writes, deletes and reads,
     * checkpoints, releases, lease renewals (RenewLease), status reads). Not counted: keepalives and session opens,
     * which must stay ahead of bulk writes and are bounded by sessionsMax, and acquires (a few
     * hundred bytes each, sent from ParkedAcquire), which are not bounded by this yet.
     */
    public void logBytesPerSecondMax(long bytesPerSecondMax, java.util.function.LongSupplier nanoTime) {
        logRate = new LogRate(bytesPerSecondMax, nanoTime);
    }

    /** From now on, {@code refusal} says whether (and why) writes that carry bytes are refused. */
    public void memory(Supplier<String> refusal) {
        memory = refusal;
    }

    /** Throws PERMISSION_DENIED, naming the principal, the permission and the name, unless the ACL allows it. */
    public void requirePermission(Permission p, String name) {
        Optional<String> principal = Principal.current();
        if (!acl.allows(principal, p, name)) {
            throw Status.PERMISSION_DENIED
                    .withDescription(principal.map(x -> "principal " + x).orElse("a client without a certificate")
                            + " may not " + p.spelling() + " '" + name + "'")
                    .asRuntimeException();
        }
    }

    /**
     * A fenced KV write also needs {@code read} on its lock. A stale one is answered with the
     * lock's current token, which is what reading the lock's status shows, and the current token
     * is all a fenced write needs: so a writer that may not read the lock is refused here, before
     * the log, and the refusal names the lock but never its token.
     */
    private void requireFenceReadable(boolean fenced, Fence fence) {
        if (!fenced) {
            return;
        }
        Optional<String> principal = Principal.current();
        if (!acl.allows(principal, Permission.READ, fence.getLock())) {
            throw Status.PERMISSION_DENIED
                    .withDescription(principal.map(x -> "principal " + x).orElse("a client without a certificate")
                            + " may not read '" + fence.getLock() + "', the lock that fences this write")
                    .asRuntimeException();
        }
    }

    /**
     * Why a node without an ACL refuses a forced release: the client shows it (exit 6 in the CLI),
     * naming the two ways to allow it.
     */
    public static final String FORCED_RELEASE_NEEDS_AN_ACL = "a forced release is an admin act, and this node"
            + " has no ACL to name an admin: give the node --acl (with --tls-ca) granting the caller's principal"
            + " admin, or start it with --unsafe-allow-forced-release to let anyone who reaches it force";

    /**
     * Without an ACL every caller is anonymous, so none can be an admin: a forced release is
     * refused, unless the operator opted in to letting anyone force ({@link
     * #allowForcedReleaseWithoutAcl}). With an ACL, {@code admin} decides, as for every call.
     */
    private void requireForcingAllowedWithoutAcl() {
        if (acl.open() && !forcedReleaseWithoutAcl) {
            throw Status.PERMISSION_DENIED
                    .withDescription(FORCED_RELEASE_NEEDS_AN_ACL)
                    .asRuntimeException();
        }
    }

    /**
     * True: on this node without an ACL, any caller may force a release, ending anyone's lease
     * (unsafe: `tenure server --unsafe-allow-forced-release`). False, the default: only a
     * principal an ACL grants {@code admin} may.
     */
    public void allowForcedReleaseWithoutAcl(boolean allow) {
        forcedReleaseWithoutAcl = allow;
    }

    /** Throws PERMISSION_DENIED unless the call's principal is named in the ACL: who may open or resume a session. */
    void requireKnownPrincipal() {
        Optional<String> principal = Principal.current();
        if (!acl.knows(principal)) {
            throw Status.PERMISSION_DENIED
                    .withDescription(principal
                                    .map(x -> "principal " + x + " is not in the ACL")
                                    .orElse("a client without a certificate")
                            + ": it may not open a session")
                    .asRuntimeException();
        }
    }

    /** The ACL now in force. */
    public Acl acl() {
        return acl;
    }

    /**
     * Puts {@code next} in force for every call from now on, and replicates what it revokes: every
     * session, on every node, of each principal it allows less than the one before ends REVOKED,
     * so nothing it holds outlives the permission it was taken under (a client may open a new
     * session, which the ACLs then decide); a principal it no longer names is barred on every node
     * until a reload names it again (see {@link Revoker}). The first ACL a node puts in force, at
     * its start, revokes nothing.
     */
    public synchronized AclChange acl(Acl next) {
        Acl before = acl;
        acl = next;
        return revoker.change(before, next);
    }

    private static boolean validated(Runnable check, Answer<?> answer) {
        try {
            check.run();
            return true;
        } catch (StatusRuntimeException e) {
            answer.fail(e);
            return false;
        }
    }

    private <T> void call(LogCommand.Builder command, Function<Reply, T> pick, Answer<T> answer, Consumer<T> observe) {
        LogRate rate = logRate;
        if (rate != null) {
            String refusal = rate.take(Client.current(), command.build().getSerializedSize());
            if (refusal != null) {
                answer.fail(Status.RESOURCE_EXHAUSTED.withDescription(refusal).asRuntimeException());
                return;
            }
        }
        answerWith(log.submit(command), pick, answer, observe);
    }

    /**
     * A read: through the read port when it serves (it writes nothing into the log, so the
     * client's log rate is not charged), else through the log as a command.
     */
    private <T> void read(LogCommand.Builder command, Function<Reply, T> pick, Answer<T> answer) {
        ReadPort port = reads;
        if (port == null || !port.serving()) {
            call(command, pick, answer, r -> {});
        } else {
            answerWith(port.read(command), pick, answer, r -> {});
        }
    }

    private static <T> void answerWith(
            CompletableFuture<Reply> reply, Function<Reply, T> pick, Answer<T> answer, Consumer<T> observe) {
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = reply.whenComplete((r, error) -> {
            if (error != null) {
                answer.fail(unavailable(error));
                return;
            }
            T response = pick.apply(r);
            observe.accept(response);
            try {
                answer.ok(response);
            } catch (IllegalStateException gone) {
                // The client gave up on the call; its outcome stands in the log all the same.
            }
        });
    }
}
