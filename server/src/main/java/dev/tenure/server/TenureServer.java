package dev.tenure.server;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.tenure.api.v1.Member;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.gateway.Acl;
import dev.tenure.gateway.AclChange;
import dev.tenure.gateway.Permission;
import dev.tenure.server.admin.AdminHttp;
import dev.tenure.server.admin.Health;
import dev.tenure.server.admin.NodeMetrics;
import dev.tenure.server.admin.PortProbe;
import dev.tenure.server.admin.ProbeResult;
import dev.tenure.server.backup.BackupFile;
import dev.tenure.server.cluster.AeronContexts;
import dev.tenure.server.cluster.ClusterNode;
import dev.tenure.server.cluster.ReplicaView;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.FatalErrors;
import dev.tenure.server.fatal.FatalHandler;
import dev.tenure.server.gateway.GatewayServer;
import dev.tenure.server.guard.DiskGuard;
import dev.tenure.server.guard.HeapGuard;
import dev.tenure.server.guard.MemoryBudget;
import dev.tenure.server.runtime.AgentWakeup;
import dev.tenure.server.security.ServerTls;
import dev.tenure.server.storage.DataDirLock;
import dev.tenure.server.storage.DataDirSpace;
import dev.tenure.server.storage.DataFormat;
import dev.tenure.server.storage.OwnerOnlyFiles;
import dev.tenure.server.transport.GrpcWarmUp;
import dev.tenure.server.transport.LoggingWarmUp;
import io.aeron.cluster.service.Cluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One Tenure node: cluster member, gRPC gateway and admin endpoint in one process. */
public final class TenureServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TenureServer.class);

    private final ServerConfig config;
    private final AtomicReference<Cluster.Role> role = new AtomicReference<>(Cluster.Role.FOLLOWER);
    private final Health health = new Health();
    private final NodeMetrics metrics = new NodeMetrics();
    private final FatalErrors fatalErrors;
    private Acl initialAcl = Acl.OPEN;
    // The fields below are set by startAll(), which start() runs before it returns the server:
    // no method but close() runs before, and close(), which a failed start calls, checks each.
    @SuppressWarnings("NullAway.Init")
    private DataDirLock dataLock;

    @SuppressWarnings("NullAway.Init")
    private ClusterNode node;

    @SuppressWarnings("NullAway.Init")
    private GatewayServer gateway;

    private @Nullable AdminHttp admin; // null when the node has no admin port

    @SuppressWarnings("NullAway.Init")
    private ScheduledExecutorService probe;

    private volatile @Nullable PortProbe portProbe; // null once stopProbingPort() ran

    @SuppressWarnings("NullAway.Init")
    private ScheduledFuture<?> portProbing;

    @SuppressWarnings("NullAway.Init")
    private ScheduledFuture<?> logProbing;

    /** What the last probe through the log found, and when it finished; null until one has. */
    private volatile @Nullable Probed lastProbe;

    @SuppressWarnings("NullAway.Init")
    private HeapGuard heapGuard;

    @SuppressWarnings("NullAway.Init")
    private DiskGuard diskGuard;

    private TenureServer(ServerConfig config, FatalErrors fatalErrors) {
        this.config = config;
        this.fatalErrors = fatalErrors;
    }

    /**
     * Starts a node, or throws naming what stopped the start. Once it serves, {@code fatal} hears
     * of every error the node cannot serve through (an Aeron agent that stopped, a gRPC event
     * loop that ended; see {@link FatalErrors}): `tenure server` ends the process with it.
     */
    public static TenureServer start(ServerConfig config, FatalHandler fatal) throws IOException {
        return start(config, fatal, Acl.OPEN);
    }

    /**
     * As above, with {@code acl} in force from the first call the node serves: a node given an ACL
     * never serves a call without it.
     */
    public static TenureServer start(ServerConfig config, FatalHandler fatal, Acl acl) throws IOException {
        // The data directory is checked, made and locked first of all, by DataDirLock.
        TenureServer server = new TenureServer(
                config,
                new FatalErrors(
                        fatal, config.dataDir().toAbsolutePath().normalize().resolve("archive")));
        server.initialAcl = acl;
        try {
            server.startAll();
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void startAll() throws IOException {
        // Limits the heap cannot hold fail first: the node would run out of memory instead of
        // refusing writes once clients fill them.
        MemoryBudget.Estimate memory = MemoryBudget.of(config);
        if (!memory.fits()) {
            if (config.heapCheck()) {
                throw new IllegalStateException(memory.refusal());
            }
            LOG.warn("tenure: warning: --no-heap-check: " + memory.refusal());
        }
        // Bad TLS files fail next, before the data directory is touched: bad input changes nothing.
        ServerTls tls = config.tls() == null ? null : ServerTls.load(config.tls());
        requireSecuredBeyondLoopback(config, tls != null);
        LoggingWarmUp.run();
        // The lock file names the node's own directory in shared memory (the driver's is inside it),
        // so that a harness deleting a killed node's data removes all of it.
        dataLock = DataDirLock.acquire(
                config.dataDir(),
                Objects.requireNonNull(
                                Path.of(AeronContexts.aeronDirFor(config)).getParent(),
                                "the driver's directory is inside the node's own")
                        .toString());
        DataDirSpace.require(config.dataDir(), AeronContexts.storageFloorBytes());
        fatalErrors.watchDisk(config.dataDir(), AeronContexts.storageFloorBytes());
        DataFormat.require(config.dataDir());
        DataDirLock.ownerOnlyAeronDirectories(config.dataDir());
        node = ClusterNode.launch(config, role::set, fatalErrors);
        ownerOnly(); // what the media driver, the archive and the consensus module made at start
        gateway = new GatewayServer(
                config,
                node.aeronDirectoryName(),
                AeronContexts.ingressEndpoints(config),
                this::status,
                node::recoveryPosition,
                metrics,
                node.wakeup(),
                fatalErrors,
                tls);
        gateway.acl(initialAcl); // before the port opens: no call is served without it
        gateway.allowForcedReleaseWithoutAcl(config.forcedReleaseWithoutAcl());
        if (config.forcedReleaseWithoutAcl() && initialAcl.open()) {
            LOG.warn("tenure: warning: --unsafe-allow-forced-release: without an ACL, anyone who reaches this"
                    + " node may end anyone's lease");
        }
        gateway.kvRoom(node.replica().kv());
        gateway.watchHub(node.replica().watch());
        gateway.reads(node.replica().reads());
        gateway.backups(node.replica().backups());
        node.replica().listen(metrics.replicaListener());
        heapGuard = HeapGuard.start();
        diskGuard = new DiskGuard(config.dataDir(), AeronContexts.storageFloorBytes(), () -> {
            var usage = node.replica().usage();
            return usage.kvBytes() + usage.checkpointBytes();
        });
        diskGuard.tick();
        gateway.byteWriteRefusal(() -> {
            String heap = heapGuard.refusal();
            return heap != null ? heap : diskGuard.refusal();
        });
        metrics.memory(memory, node.replica()::usage, heapGuard::refusal, config.limits());
        gateway.start();
        warnIfFilesRunOutBeforeConnections();
        GrpcWarmUp.call(config.self().host(), gateway.port(), tls);
        portProbe = new PortProbe(config.self().host(), gateway.port(), tls);
        // Health is probed through the log, and the client port through a new connection, once a
        // second, so "no quorum" or a dead port is noticed, and its start time known, even when
        // no client is asking. /health answers from this probe alone: the node's own reads are
        // the only log entries that no caller's permission stands behind (docs/security.md).
        probe = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenure-health-probe");
            t.setDaemon(true);
            return t;
        });
        logProbing = probe.scheduleWithFixedDelay(
                () -> guarded(
                        () -> {
                            // A probe that fails records nothing: /health then reports the last
                            // result stale, which is what it should say.
                            var unused = gateway.status().thenAccept(this::probed);
                        },
                        PROBE_PERIOD_MS),
                0,
                PROBE_PERIOD_MS,
                TimeUnit.MILLISECONDS);
        portProbing = repeat(portProbe::probe, PROBE_PERIOD_MS);
        repeatUntilClose(heapGuard::tick, 1000);
        repeatUntilClose(diskGuard::tick, 1000);
        repeatUntilClose(this::ownerOnly, 1000); // what Aeron makes later: segments, snapshots, buffers
        if (Files.exists(config.dataDir().resolve(BackupFile.SEED_FILE))) {
            repeatUntilClose(this::snapshotSeedIfLeader, 1000);
        }
        long snapshotMs = config.snapshotInterval().toMillis();
        if (snapshotMs > 0) {
            repeatUntilClose(this::snapshotIfLeader, snapshotMs);
            repeatUntilClose(this::compactLog, snapshotMs);
        }
        if (config.adminPort() > 0) {
            admin = AdminHttp.start(
                    config.bindHost(),
                    config.adminPort(),
                    tls == null ? null : tls.admin(),
                    this::monitors,
                    this::lastProbe,
                    this::statusNow,
                    metrics::scrape);
            admin.serveDashboard(new dev.tenure.server.admin.Dashboard.Source() {
                @Override
                public dev.tenure.server.admin.ProbeResult cluster() {
                    return lastProbe();
                }

                @Override
                public java.util.concurrent.CompletableFuture<dev.tenure.api.v1.ListLocksResponse> locks(
                        String prefix, String after) {
                    return gateway.listLocks(prefix, after);
                }

                @Override
                public java.util.concurrent.CompletableFuture<dev.tenure.api.v1.LockStatusResponse> lock(String name) {
                    return gateway.lockStatus(name);
                }

                @Override
                public dev.tenure.gateway.WatchHub feed() {
                    return node.replica().watch();
                }
            });
        }
        fatalErrors.serving();
        LOG.debug(
                "node {} started: gRPC port {}, admin port {}, {} member(s), TLS {}, gRPC reflection {}",
                config.nodeId(),
                gateway.port(),
                admin == null ? "off" : String.valueOf(admin.port()),
                config.members().size(),
                tls == null ? "off" : "on",
                config.grpcReflection() ? "on" : "off");
    }

    /** Every file of the node 0600 and every directory 0700, whatever the umask (see {@link OwnerOnlyFiles}). */
    private void ownerOnly() {
        try {
            OwnerOnlyFiles.tighten(config.dataDir());
            OwnerOnlyFiles.tighten(Objects.requireNonNull(
                    Path.of(node.aeronDirectoryName()).getParent(), "the driver's directory is inside the node's own"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the node's files owner-only: " + e.getMessage(), e);
        }
    }

    /**
     * Runs {@code task} on the probe thread every {@code periodMs}. A run that throws is logged and
     * the next one runs: an executor would otherwise stop repeating it without a word, and a node
     * whose probes stopped would report a health it no longer checks.
     */
    private ScheduledFuture<?> repeat(Runnable task, long periodMs) {
        return probe.scheduleWithFixedDelay(() -> guarded(task, periodMs), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** As {@link #repeat}, for a task that runs as long as the node: close() ends the executor. */
    private void repeatUntilClose(Runnable task, long periodMs) {
        // guarded() catches what a run throws, so the future never fails: nothing to wait for.
        var unused = repeat(task, periodMs);
    }

    private static void guarded(Runnable task, long periodMs) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.warn("tenure: a periodic task failed, it runs again in " + periodMs + " ms: " + e);
        }
    }

    /** How often the node probes itself through the log and through its client port. */
    static final long PROBE_PERIOD_MS = 1000;

    private record Probed(ServerStatusResponse status, long finishedNanos) {}

    private void probed(ServerStatusResponse status) {
        lastProbe = new Probed(status, System.nanoTime());
        metrics.observe(status);
    }

    /**
     * The last probe's result for /health. A probe finishes within the request timeout (answered,
     * or failed as "no quorum"), and one starts every period: a result older than both, and a
     * period of slack, means the probe is stuck, and /health says "stale" rather than repeat it.
     */
    ProbeResult lastProbe() {
        long ageMsMax = config.requestTimeout().toMillis() + 2 * PROBE_PERIOD_MS;
        Probed last = lastProbe;
        if (last == null) {
            return ProbeResult.none(ageMsMax);
        }
        return new ProbeResult(
                last.status(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - last.finishedNanos()), ageMsMax);
    }

    /**
     * Puts {@code next} in force (a reload); returns what it revokes on every node: the sessions
     * of each principal it allows less than the ACL before, and the opens of each it no longer
     * names (see {@link dev.tenure.gateway.Gateway#acl(Acl)}).
     */
    public AclChange acl(Acl next) {
        return gateway.acl(next);
    }

    /**
     * Who may read the admin port's /status and /metrics (lock names and keys are user data):
     * with an ACL, a principal with {@code monitor}; on a node that asks clients for certificates,
     * any principal; otherwise anyone who reaches the port, as the gRPC port.
     */
    private boolean monitors(Optional<String> principal) {
        Acl acl = gateway.acl();
        if (!acl.open()) {
            return acl.allows(principal, Permission.MONITOR, "");
        }
        return config.tls() == null || !config.tls().clientCertificates() || principal.isPresent();
    }

    /**
     * A node whose open-file limit runs out before connectionsMax does not refuse the connections
     * past it: their accepts fail with "Too many open files" (which it survives, but which also
     * holds up the connections it could still take). Said once at start, with what it has open then.
     */
    private void warnIfFilesRunOutBeforeConnections() {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean os)) {
            return;
        }
        long max = os.getMaxFileDescriptorCount();
        long open = os.getOpenFileDescriptorCount();
        int connections = config.connections().connectionsMax();
        if (max - open - FILES_KEPT_FREE < connections) {
            LOG.warn("tenure: warning: connectionsMax is " + connections + ", but this process may open " + max
                    + " files and has " + open + " open: past about " + Math.max(0, max - open - FILES_KEPT_FREE)
                    + " connections, accepts fail with 'Too many open files' instead of being refused"
                    + " (raise its open-file limit, ulimit -n, or lower --connections-max)");
        }
    }

    /** Files the node opens after its start (snapshots, log segments, admin connections). */
    private static final int FILES_KEPT_FREE = 64;

    /**
     * A node that others beyond this machine can reach serves TLS to clients and admits only
     * cluster clients that prove the cluster secret, or its operator said --insecure: an open node
     * is a choice someone typed, never the accident of a --members entry with a routable address.
     * Without the secret, any process that reaches the member's Aeron ports writes to the log
     * with no permission checked. Refused before anything is started or written (exit 2 in the CLI).
     */
    static void requireSecuredBeyondLoopback(ServerConfig config, boolean tls) {
        if (loopback(config.bindHost())) {
            return;
        }
        String host = config.bindHost();
        if (!tls) {
            if (!config.insecure()) {
                throw new IllegalArgumentException("refusing to serve without TLS on " + host
                        + ", where anyone who reaches it could take, release and write: give --tls-cert and --tls-key,"
                        + " or --insecure to accept an open node (docs/security.md)");
            }
            LOG.warn("tenure: warning: --insecure: serving without TLS on " + host
                    + ": anyone who can reach this address can take, release and write (docs/security.md)");
        }
        if (config.clusterSecret() == null) {
            if (!config.insecure()) {
                throw new IllegalArgumentException("refusing to serve on " + host + " without --cluster-secret-file,"
                        + " where any process that reaches this member's Aeron ports could write to the log: give"
                        + " every member the same --cluster-secret-file, or --insecure to accept an open node"
                        + " (docs/cluster.md, 'Cluster secret')");
            }
            LOG.warn("tenure: warning: --insecure: no --cluster-secret-file: any process that reaches this"
                    + " member's Aeron ports on " + host + " can write to the log (docs/cluster.md, 'Cluster secret')");
        }
    }

    /** Whether {@code host} is a loopback address; a name that does not resolve is not. */
    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Fills in what this node knows of itself and its cluster around the replicated stats. */
    private ServerStatusResponse.Builder status(ServerStatusResponse.Builder b) {
        int leader = gateway.leaderMemberId();
        b.setNodeId(config.nodeId()).setLeaderId(leader);
        for (ServerConfig.Member m : config.members()) {
            b.addMembers(
                    Member.newBuilder().setId(m.id()).setEndpoint(m.endpoint()).setLeader(m.id() == leader));
        }
        ReplicaView.Digest digest = node.replica().digest();
        b.setRevision(node.replica().revision());
        b.setReplicaLastToken(node.replica().lastToken())
                .setReplicaLogPosition(node.replica().logPosition())
                .setReplicaDigestPosition(digest.logPosition())
                .setReplicaStateDigest(digest.value());
        String problem = portProbe == null ? null : portProbe.problem();
        try {
            // These read the recording log, a file: out of descriptors, or with the data
            // directory gone, that fails, and the node cannot serve either.
            b.setSnapshots(node.snapshots())
                    .setSnapshotPosition(node.latestSnapshotPosition())
                    .setLogStartPosition(node.logStartPosition());
        } catch (RuntimeException e) {
            problem = "the node cannot read its data directory " + config.dataDir() + ": " + e.getMessage();
        }
        boolean answered = b.getNowMs() > 0;
        if (problem == null && answered && !gateway.limitsAgreed()) {
            problem = "the cluster has not yet answered this node's limits: client calls are refused until it has";
        }
        health.observe(answered, gateway.clusterConnected(), gateway.clusterRefusedCredentials(), problem);
        gateway.serving("ok".equals(health.state()));
        return b.setHealth(health.state()).setHealthDetail(health.detail()).setHealthSinceMs(health.sinceMs());
    }

    /**
     * A restored member's state lives in its seed until a snapshot holds it, and a member copied
     * with {@code --join} from a cluster that has no snapshot would replay the log without the
     * seed: so the leader of a restored cluster takes its first snapshot at once, not after
     * {@code --snapshot-interval}.
     */
    private void snapshotSeedIfLeader() {
        if (role.get() == Cluster.Role.LEADER && node.latestSnapshotPosition() <= 0) {
            node.requestSnapshot();
        }
    }

    private void snapshotIfLeader() {
        if (role.get() == Cluster.Role.LEADER) {
            node.requestSnapshot();
        }
    }

    /** Every member deletes, on its own, the log and snapshots that all members moved past. */
    private void compactLog() {
        try {
            long deleted = node.compactLog();
            if (deleted > 0) {
                LOG.info("tenure: deleted " + deleted + " bytes of log before position " + node.logStartPosition()
                        + " (covered by snapshots on every member)");
            }
        } catch (RuntimeException e) {
            // A failed pass deletes nothing; the next one retries.
            LOG.warn("tenure: log compaction failed: " + e);
        }
    }

    private ServerStatusResponse statusNow() {
        return gateway.status().join();
    }

    /** The node's status, with counts read through the log (blocks up to the request timeout). */
    public ServerStatusResponse status() {
        return statusNow();
    }

    public int port() {
        return gateway.port();
    }

    /** Client connections open on the gRPC port now. */
    public int openConnections() {
        return gateway.openConnections();
    }

    /** Bytes of requests the gRPC port's calls hold, or have room reserved for, now (the request budget). */
    public long requestBytesHeld() {
        return gateway.requestBytesHeld();
    }

    public int adminPort() {
        return admin == null ? 0 : admin.port();
    }

    /**
     * Stops the probe of the client port, whose connection (one a second, for a few milliseconds)
     * would otherwise show in {@link #openConnections()}: for tests that count connections. The
     * health then no longer looks at the port.
     */
    void stopProbingPort() {
        portProbing.cancel(false);
        portProbe = null;
    }

    /**
     * Stops the probe through the log: for tests that count log entries, which the probe adds
     * once a second. /health then answers the last result, until it is stale.
     */
    void stopProbingLog() {
        logProbing.cancel(false);
    }

    /** The position of the last log entry this node's replica applied: how long its log is. */
    long appliedLogPosition() {
        return node.replica().logPosition();
    }

    /** How this node's agents wake one another; for tests of what its role changes there. */
    AgentWakeup wakeup() {
        return node.wakeup();
    }

    public Cluster.Role role() {
        return Objects.requireNonNull(role.get(), "set to a role at construction, and then only to Aeron's");
    }

    @Override
    public void close() {
        fatalErrors.stopping();
        if (probe != null) {
            probe.shutdownNow();
        }
        if (admin != null) {
            admin.close();
        }
        if (gateway != null) {
            gateway.close();
        }
        if (node != null) {
            node.close();
        }
        if (heapGuard != null) {
            heapGuard.close();
        }
        metrics.close();
        if (dataLock != null) {
            try {
                dataLock.close();
            } catch (IOException e) {
                // The process is ending; the kernel releases the lock anyway.
            }
        }
    }
}
