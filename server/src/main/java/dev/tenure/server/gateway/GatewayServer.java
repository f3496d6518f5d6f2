package dev.tenure.server.gateway;

import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.core.Limits;
import dev.tenure.core.PrincipalLimits;
import dev.tenure.gateway.Acl;
import dev.tenure.gateway.AclChange;
import dev.tenure.gateway.Gateway;
import dev.tenure.gateway.ListPaging;
import dev.tenure.gateway.ReadPort;
import dev.tenure.log.v1.ListLocks;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.MemberReport;
import dev.tenure.log.v1.Reply;
import dev.tenure.log.v1.StatsRequest;
import dev.tenure.server.admin.NodeMetrics;
import dev.tenure.server.cluster.AeronContexts;
import dev.tenure.server.cluster.Backups;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.fatal.FatalErrors;
import dev.tenure.server.runtime.AgentWakeup;
import dev.tenure.server.security.SecretChallengeCredentials;
import dev.tenure.server.security.ServerTls;
import dev.tenure.server.transport.ClientAddresses;
import dev.tenure.server.transport.Connections;
import dev.tenure.server.transport.MalformedRequests;
import dev.tenure.server.transport.RequestBudget;
import dev.tenure.server.transport.SlowReaders;
import dev.tenure.server.transport.ThrottledLog;
import dev.tenure.server.transport.TransportLoops;
import dev.tenure.server.transport.TransportWarnings;
import io.aeron.Aeron;
import io.aeron.cluster.client.AeronCluster;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's gateway, served: the {@link Gateway} behind a gRPC server, with its one cluster
 * connection as the log and one timer thread as its scheduler.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayServer.class);

    private final Aeron aeron;
    private final ClusterChannel cluster;
    private final NodeMetrics metrics;
    private final LimitsAgreement limitsAgreement;
    private final boolean changeLimits;
    private final long requestTimeoutMs;
    private final boolean lone;
    private volatile boolean started;
    private final TimerThread timer;
    private final Gateway gateway;
    private final TransportLoops loops;
    /** HTTP/2 flow control window of each connection and stream: gRPC's default, fixed. */
    static final int FLOW_CONTROL_WINDOW_BYTES = 1 << 20;

    private final Connections connections;
    private final RequestBudget requests;
    private final Server server;
    private final HealthStatusManager grpcHealth = new HealthStatusManager();
    private final Function<ServerStatusResponse.Builder, ServerStatusResponse.Builder> nodeStatus;
    private final int nodeId;
    private final LongSupplier recoveryPosition;
    /** This node's replica's backups, once the node is built (see {@link #backups(Backups)}). */
    private volatile @Nullable Backups backups;

    private final ListPaging listPaging;

    public GatewayServer(
            ServerConfig config,
            String aeronDir,
            String ingressEndpoints,
            Function<ServerStatusResponse.Builder, ServerStatusResponse.Builder> nodeStatus,
            LongSupplier recoveryPosition,
            NodeMetrics metrics,
            AgentWakeup wakeup,
            FatalErrors fatalErrors,
            @Nullable ServerTls tls) {
        this.timer = new TimerThread(fatalErrors);
        // A lone member is always the leader: its gateway talks to it over shared memory.
        boolean local = config.members().size() == 1;
        // One Aeron client for every reconnect, on the node's monotonic epoch clock (see
        // MonotonicClusterClock): a wall clock step must not make it declare the driver dead.
        // Its conductor runs in the cluster channel's duty cycle rather than on a thread that
        // would wake every few milliseconds on an idle node.
        this.aeron = AeronContexts.connectInvokedClient(aeronDir);
        AeronCluster.Context ctx = new AeronCluster.Context()
                .aeron(aeron)
                .ownsAeronClient(false)
                .aeronDirectoryName(aeronDir)
                .ingressChannel(local ? "aeron:ipc" : "aeron:udp")
                .ingressEndpoints(local ? null : ingressEndpoints)
                .egressChannel(
                        local
                                ? "aeron:ipc"
                                : "aeron:udp?endpoint=" + config.self().host() + ":0")
                .messageTimeoutNs(config.requestTimeout().toNanos());
        if (config.clusterSecret() != null) {
            ctx.credentialsSupplier(new SecretChallengeCredentials(config.clusterSecret()));
        }
        this.cluster = new ClusterChannel(
                ctx,
                aeron.conductorAgentInvoker(),
                config.requestTimeout().toNanos(),
                config.keepAliveBatch().toNanos(),
                event -> gateway().onEvent(event),
                wakeup,
                fatalErrors);
        Limits stateLimits = config.limits();
        this.limitsAgreement = new LimitsAgreement(
                cluster,
                timer,
                fatalErrors,
                stateLimits,
                config.nodeId(),
                () -> quotas(stateLimits, gateway().acl()));
        this.changeLimits = config.changeLimits();
        this.requestTimeoutMs = config.requestTimeout().toMillis();
        this.lone = local;
        this.nodeStatus = nodeStatus;
        this.nodeId = config.nodeId();
        this.recoveryPosition = recoveryPosition;
        ConnectionLimits limits = config.connections();
        // Throttled, as malformed requests are: a client can send stale writes as fast as it can
        // send anything. Without tokens: the lock's current token lets whoever knows it write
        // under the lock, and a log line is read by more people than the lock's readers.
        ThrottledLog staleWrites = new ThrottledLog(LOG);
        this.gateway = new Gateway(
                limitsAgreement,
                timer,
                config.limits(),
                new Gateway.Listener() {
                    @Override
                    public void staleWriteRejected(String lock, String target, long token, long current) {
                        staleWrites.log(() -> staleWriteLine(lock, target, current));
                        metrics.staleWrite(target.startsWith("kv:") ? "kv" : target);
                    }

                    @Override
                    public void carriedCallCompleted(String method, Status.Code code, long nanos) {
                        metrics.carriedCall(method, code, nanos);
                    }

                    @Override
                    public void acquireAnswered(String result, long nanos) {
                        metrics.acquireAnswered(result, nanos);
                    }

                    @Override
                    public void sessionReset() {
                        metrics.sessionReset();
                    }

                    @Override
                    public void sessionResumed() {
                        metrics.sessionResumed();
                    }
                },
                limits.callsInFlightMax());
        this.metrics = metrics;
        cluster.onCommitted(metrics::committed);
        gateway.logBytesPerSecondMax(limits.logBytesPerSecondMax(), System::nanoTime);
        this.listPaging = config.listPaging();
        gateway.listPaging(config.listPaging());
        int messageBytesMax = config.messageBytesMax();
        List<ServerConfig.Member> members = config.members();
        GrpcService service =
                new GrpcService(gateway, request -> status(request.getStateDigest()), () -> leader(members), chunks -> {
                    Backups from = backups;
                    if (from == null) {
                        chunks.onError(Status.UNAVAILABLE
                                .withDescription("this node serves no backup yet")
                                .asRuntimeException());
                    } else {
                        BackupCall.serve(cluster, from, messageBytesMax, requestTimeoutMs, chunks);
                    }
                });
        // Out of direct memory, a node's connections fail while its log looks fine: it ends as
        // out of heap does (138), whether gRPC's allocator or Netty's log is first to hear of it.
        TransportWarnings.install(error -> outOfMemory(fatalErrors, error));
        this.loops = TransportLoops.start(fatalErrors);
        this.connections = new Connections(limits, tls != null);
        metrics.connections(connections);
        NettyServerBuilder transport = loops.serveOn(
                NettyServerBuilder.forAddress(
                        new InetSocketAddress(config.bindHost(), config.self().port())),
                connections.acceptor());
        connections.outOfMemory(error -> outOfMemory(fatalErrors, error));
        ServerServiceDefinition refused = MalformedRequests.refused(service.bindService());
        this.requests = new RequestBudget(connections, config.messageBytesMax());
        // The slow readers' watch is next to the transport but for the request budget: what it
        // drops of a call cut off, no other interceptor counts as sent. The budget is outermost,
        // so that a call it refuses costs nothing more.
        ServerServiceDefinition served;
        if (tls == null) {
            served = ServerInterceptors.intercept(
                    refused, new ClientAddresses(), metrics.grpcInterceptor(), new SlowReaders(connections), requests);
        } else {
            // TLS only on this port. The metrics interceptor is outside the principals' check, so
            // calls refused for want of a principal are counted too.
            transport.sslContext(tls.grpc());
            served = ServerInterceptors.intercept(
                    refused,
                    new ClientAddresses(),
                    tls.principals(),
                    metrics.grpcInterceptor(),
                    new SlowReaders(connections),
                    requests);
        }
        if (config.grpcReflection()) {
            // Server reflection (grpc.reflection.v1): the schema of the services this port serves,
            // so that grpcurl and its kind need no .proto files. Like the health service it is
            // outside the ACL: it names services, methods and message types, nothing of any lock,
            // session or key, and the same for every caller; on a TLS port it is reached only
            // through the handshake (with client certificates, by a client that has one).
            transport.addService(ProtoReflectionServiceV1.newInstance());
        }
        this.server = transport
                .addService(served)
                // The standard gRPC health service (grpc.health.v1), for load balancers that probe
                // gRPC and for the node's own probe of this port (PortProbe): it answers at once,
                // without the log, and its status follows the node's health.
                .addService(grpcHealth.getHealthService())
                .maxInboundMessageSize(config.messageBytesMax())
                // A fixed window per connection and per stream (gRPC's default size, without its
                // automatic growth): what a client may send that no call asked for yet, and so what
                // the request budget does not count, is at most this much per connection.
                .flowControlWindow(FLOW_CONTROL_WINDOW_BYTES)
                // A connection that has not finished its TLS handshake and sent HTTP/2's preface
                // by then is closed (gRPC's default gives it two minutes).
                .handshakeTimeout(limits.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
                // A connection with no call at all is sent a GOAWAY and closed; clients open a new
                // one for their next call. A session's stream is a call, so no session is affected.
                .maxConnectionIdle(limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .maxConcurrentCallsPerConnection(limits.callsPerConnectionMax())
                // Every handler only validates and hands the request to the cluster channel's
                // queue, never blocks: running it on the Netty event loop that read it saves a
                // thread hand-off (two context switches) per request and per keepalive.
                .directExecutor()
                // Clients never ping; a silent connection must stay open so that only a closed
                // socket (not quiet) ends a session before its TTL.
                .permitKeepAliveWithoutCalls(false)
                .build();
    }

    /**
     * The ACL in force from now on; returns what it revokes on every node (see {@link
     * Gateway#acl(Acl)}). Its quotas are replicated state: once the node serves, new ones are
     * proposed to the cluster through the log, and are in force once applied, on every member.
     */
    public AclChange acl(Acl next) {
        Acl before = gateway.acl();
        AclChange change = gateway.acl(next);
        if (started && !before.quotas().equals(next.quotas())) {
            limitsAgreement.proposeQuotas();
        }
        return change;
    }

    /** The quotas {@code acl} gives its principals, each filled in from the node's per-principal limits. */
    private static SortedMap<String, PrincipalLimits> quotas(Limits limits, Acl acl) {
        TreeMap<String, PrincipalLimits> out = new TreeMap<>();
        acl.quotas()
                .forEach((principal, values) ->
                        out.put(principal, limits.withAll(values).principal()));
        return out;
    }

    public Acl acl() {
        return gateway.acl();
    }

    /** Whether, without an ACL, any caller may force a release (see {@link Gateway#allowForcedReleaseWithoutAcl}). */
    public void allowForcedReleaseWithoutAcl(boolean allow) {
        gateway.allowForcedReleaseWithoutAcl(allow);
    }

    /** What the gRPC health service answers from now on: the node's health is "ok", or not. */
    public void serving(boolean ok) {
        grpcHealth.setStatus(
                HealthStatusManager.SERVICE_NAME_ALL_SERVICES,
                ok ? HealthCheckResponse.ServingStatus.SERVING : HealthCheckResponse.ServingStatus.NOT_SERVING);
    }

    /** Backups are served from {@code from}, this node's replica's, from now on. */
    public void backups(Backups from) {
        backups = from;
    }

    /**
     * Status reads, KV gets and listing pages are served by {@code reads}, this node's replica's
     * read index, from now on; this gateway's commands are what release them.
     */
    public void reads(dev.tenure.server.cluster.ReadIndex reads) {
        reads.gateway(cluster);
        // Not before the node agreed its limits: until then every call, reads too, is refused
        // before the log, and a read through the log gets that refusal from the agreement.
        gateway.reads(new ReadPort() {
            @Override
            public boolean serving() {
                return limitsAgreement.isAgreed() && reads.serving();
            }

            @Override
            public CompletableFuture<Reply> read(LogCommand.Builder read) {
                return reads.read(read);
            }
        });
        metrics.reads(reads::answered, cluster::barriersSent, reads::leased);
    }

    /** Watches are served from {@code hub}, this node's replica's change feed, from now on. */
    public void watchHub(dev.tenure.gateway.WatchHub hub) {
        gateway.watchHub(hub);
    }

    /** Puts that this view shows cannot fit are refused before the log from now on (see {@code Gateway.kvRoom}). */
    public void kvRoom(dev.tenure.gateway.KvRoom room) {
        gateway.kvRoom(room);
    }

    /**
     * Why KV writes and checkpoints are refused from now on, or null: the heap guard's refusal or
     * the disk guard's (see {@code Gateway.memory}).
     */
    public void byteWriteRefusal(java.util.function.Supplier<String> refusal) {
        gateway.memory(refusal);
    }

    /**
     * Connects to the cluster and proposes this node's limits, then opens the port. A lone member,
     * which has its quorum at once, waits a little for the limits to be agreed, so that it serves
     * its first call; a member of a larger cluster may have no quorum yet, and opens the port at
     * once: client calls are refused UNAVAILABLE until its limits are agreed (see {@link
     * LimitsAgreement}).
     */
    public void start() throws IOException {
        started = true;
        cluster.start();
        limitsAgreement.propose(changeLimits);
        try {
            limitsAgreement.answered().get(lone ? 2 * requestTimeoutMs : 0, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException notYet) {
            // Proposed again until the log answers; the health says so meanwhile.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.start();
    }

    /** Whether the cluster's log holds this node's limits yet: until then, no client's command is written there. */
    public boolean limitsAgreed() {
        return limitsAgreement.isAgreed();
    }

    /**
     * The node's status. The counts come through the log, so a node that answers "ok" has just
     * committed a command through a quorum; if the log does not answer in time the status says so.
     */
    public CompletableFuture<ServerStatusResponse> status() {
        return status(false);
    }

    /** As {@link #status()}; with {@code stateDigest}, every replica digests its state at this read. */
    public CompletableFuture<ServerStatusResponse> status(boolean stateDigest) {
        // Every status read carries this node's recovery position to its peers, through the log.
        StatsRequest.Builder stats = StatsRequest.newBuilder().setStateDigest(stateDigest);
        try {
            stats.setReport(
                    MemberReport.newBuilder().setNodeId(nodeId).setRecoveryPosition(recoveryPosition.getAsLong()));
        } catch (RuntimeException unreadable) {
            // The position is read from the recording log, a file, which can fail (descriptors run
            // out): the read goes on without the report, peers keep the last one, and the node's
            // status says what failed (TenureServer).
        }
        return cluster.submit(LogCommand.newBuilder().setStats(stats)).handle((reply, error) -> {
            ServerStatusResponse.Builder b = ServerStatusResponse.newBuilder();
            if (error == null) {
                var s = reply.getStats();
                b.setSessions(s.getSessions())
                        .setLocks(s.getLocks())
                        .setHeld(s.getHeld())
                        .setLastToken(s.getLastToken())
                        .setNowMs(s.getNowMs())
                        .setStaleWritesRejected(s.getStaleWritesRejected());
            }
            return nodeStatus.apply(b).build();
        });
    }

    /**
     * One page of the lock listing, read through the log as {@code ListLocks} is, for the admin
     * port's dashboard: the admin port decides who may read it (the {@code monitor} permission),
     * so no ACL of names applies here. Bounded by the node's list paging, as every listing is.
     */
    public CompletableFuture<ListLocksResponse> listLocks(String prefix, String after) {
        ListPaging paging = listPaging;
        ListLocksRequest request = ListLocksRequest.newBuilder()
                .setPrefix(prefix)
                .setAfter(after)
                .setLimit(paging.listPageDefault())
                .build();
        return cluster.submit(LogCommand.newBuilder()
                        .setListLocks(
                                ListLocks.newBuilder().setRequest(request).setBytesMax(paging.listPageBytesMax())))
                .thenApply(Reply::getListLocks);
    }

    /** One lock's status, read through the log as {@code LockStatus} is, for the dashboard (see above). */
    public CompletableFuture<LockStatusResponse> lockStatus(String lock) {
        return cluster.submit(LogCommand.newBuilder()
                        .setLockStatus(LockStatusRequest.newBuilder().setLock(lock)))
                .thenApply(Reply::getLockStatus);
    }

    public int port() {
        return server.getPort();
    }

    public boolean clusterConnected() {
        return cluster.connected();
    }

    public int leaderMemberId() {
        return cluster.leaderMemberId();
    }

    /** The leader as this node's cluster channel last heard of it, with its configured client endpoint. */
    private LeaderResponse leader(List<ServerConfig.Member> members) {
        int id = cluster.leaderMemberId();
        LeaderResponse.Builder b = LeaderResponse.newBuilder().setLeaderId(id);
        for (ServerConfig.Member m : members) {
            if (m.id() == id) {
                b.setEndpoint(m.endpoint());
            }
        }
        return b.build();
    }

    /** The cluster refused this node's cluster secret when it last tried to connect. */
    public boolean clusterRefusedCredentials() {
        return cluster.credentialsRefused();
    }

    public int boundSessions() {
        return gateway.boundSessions();
    }

    /** Client connections open on the gRPC port now. */
    public int openConnections() {
        return connections.open();
    }

    /** Bytes of requests the gRPC port's calls hold, or have room reserved for, now (see RequestBudget). */
    public long requestBytesHeld() {
        return requests.nodeBytes();
    }

    private void shutDownGrpc() {
        server.shutdown();
        try {
            if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
                server.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.shutdownNow();
        }
    }

    private static void outOfMemory(FatalErrors fatalErrors, Throwable error) {
        fatalErrors.ended(FatalCause.OUT_OF_MEMORY, "the gRPC transport could not allocate a buffer: " + error);
    }

    /** Events reach the gateway from the cluster channel's thread, which starts only in start(). */
    private Gateway gateway() {
        return gateway;
    }

    /** One stale write for the node's log: which lock and what it wrote to, never a token or a value. */
    static String staleWriteLine(String lock, String target, long current) {
        return "tenure: stale write rejected: lock " + lock + " " + target
                + (current == 0 ? " (the lock is free)" : " (its token is not the lock's current one)");
    }

    @Override
    public void close() {
        if (!loops.acceptEnded()) {
            shutDownGrpc();
        } // else the node is failing, and only its loops and the process are left to end
        loops.close();
        timer.close();
        cluster.close();
        aeron.close();
    }
}
