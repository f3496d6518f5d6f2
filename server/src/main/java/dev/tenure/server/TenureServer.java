package dev.tenure.server;

import dev.tenure.api.v1.Member;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.gateway.Acl;
import dev.tenure.gateway.Permission;
import dev.tenure.server.admin.AdminHttp;
import dev.tenure.server.admin.NodeMetrics;
import dev.tenure.server.cluster.ClusterNode;
import dev.tenure.server.cluster.ReplicaView;
import dev.tenure.server.fault.FatalHandler;
import dev.tenure.server.fault.NodeFaults;
import dev.tenure.server.gateway.GatewayServer;
import dev.tenure.server.memory.HeapGuard;
import dev.tenure.server.memory.MemoryBudget;
import dev.tenure.server.runtime.AgentWakeup;
import dev.tenure.server.tls.ServerTls;
import io.aeron.cluster.service.Cluster;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** One Tenure node: cluster member, gRPC gateway and admin endpoint in one process. */
public final class TenureServer implements AutoCloseable {

    private final ServerConfig config;
    private final AtomicReference<Cluster.Role> role = new AtomicReference<>(Cluster.Role.FOLLOWER);
    private final Health health = new Health();
    private final NodeMetrics metrics = new NodeMetrics();
    private final NodeFaults faults;
    private Acl initialAcl = Acl.OPEN;
    private DataDirLock dataLock;
    private ClusterNode node;
    private GatewayServer gateway;
    private AdminHttp admin;
    private ScheduledExecutorService probe;
    private HeapGuard heapGuard;

    private TenureServer(ServerConfig config, NodeFaults faults) {
        this.config = config;
        this.faults = faults;
    }

    /**
     * Starts a node, or throws naming what stopped the start. Once it serves, {@code fatal} hears
     * of every fault the node cannot serve through (an Aeron agent that stopped, a gRPC event
     * loop that ended; see {@link NodeFaults}): `tenure server` ends the process with it.
     */
    public static TenureServer start(ServerConfig config, PrintStream log, FatalHandler fatal) throws IOException {
        return start(config, log, fatal, Acl.OPEN);
    }

    /**
     * As above, with {@code acl} in force from the first call the node serves: a node given an ACL
     * never serves a call without it.
     */
    public static TenureServer start(ServerConfig config, PrintStream log, FatalHandler fatal, Acl acl)
            throws IOException {
        // The data directory is checked, made and locked first of all, by DataDirLock.
        TenureServer server = new TenureServer(config, new NodeFaults(fatal, log));
        server.initialAcl = acl;
        try {
            server.startAll(log);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    private void startAll(PrintStream log) throws IOException {
        // Limits the heap cannot hold fail first: the node would run out of memory instead of
        // refusing writes once clients fill them.
        MemoryBudget.Estimate memory = MemoryBudget.of(config);
        if (!memory.fits()) {
            if (config.heapCheck()) {
                throw new IllegalStateException(memory.refusal());
            }
            log.println("tenure: warning: --no-heap-check: " + memory.refusal());
        }
        // Bad TLS files fail next, before the data directory is touched: bad input changes nothing.
        ServerTls tls = config.tls() == null ? null : ServerTls.load(config.tls());
        if (tls == null && !loopback(config.bindHost())) {
            log.println("tenure: warning: serving without TLS on " + config.bindHost()
                    + ": anyone who can reach this address can take, release and write; give --tls-cert and"
                    + " --tls-key (docs/security.md)");
        }
        LoggingWarmUp.run();
        dataLock = DataDirLock.acquire(config.dataDir());
        DataDirSpace.require(config.dataDir(), ClusterNode.storageFloorBytes());
        node = ClusterNode.launch(config, role::set, faults);
        gateway = new GatewayServer(
                config,
                node.aeronDirectoryName(),
                ClusterNode.ingressEndpoints(config),
                this::status,
                node::recoveryPosition,
                metrics,
                node.wakeup(),
                faults,
                tls);
        gateway.acl(initialAcl); // before the port opens: no call is served without it
        heapGuard = HeapGuard.start();
        gateway.memory(heapGuard::refusal);
        metrics.memory(memory, node.replica()::usage, heapGuard::refusal, config.limits());
        gateway.start();
        GrpcWarmUp.call(config.self().host(), gateway.port(), tls);
        // Health is probed through the log once a second, so "no quorum" is noticed, and its
        // start time known, even when no client is asking.
        probe = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tenure-health-probe");
            t.setDaemon(true);
            return t;
        });
        probe.scheduleWithFixedDelay(() -> gateway.status().thenAccept(metrics::observe), 1, 1, TimeUnit.SECONDS);
        probe.scheduleWithFixedDelay(heapGuard::tick, 1, 1, TimeUnit.SECONDS);
        long snapshotMs = config.snapshotInterval().toMillis();
        if (snapshotMs > 0) {
            probe.scheduleWithFixedDelay(this::snapshotIfLeader, snapshotMs, snapshotMs, TimeUnit.MILLISECONDS);
            probe.scheduleWithFixedDelay(() -> compactLog(log), snapshotMs, snapshotMs, TimeUnit.MILLISECONDS);
        }
        if (config.adminPort() > 0) {
            admin = AdminHttp.start(
                    config.bindHost(),
                    config.adminPort(),
                    tls == null ? null : tls.admin(),
                    this::monitors,
                    this::statusNow,
                    metrics::scrape);
        }
        faults.serving();
    }

    /**
     * Puts {@code next} in force (a reload); returns the principals whose sessions this node
     * ended because it allows them less than the ACL before (see {@link
     * dev.tenure.gateway.Gateway#acl(Acl)}).
     */
    public List<String> acl(Acl next) {
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
        b.setReplicaLastToken(node.replica().lastToken())
                .setReplicaLogPosition(node.replica().logPosition())
                .setReplicaDigestPosition(digest.logPosition())
                .setReplicaStateDigest(digest.value())
                .setSnapshots(node.snapshots())
                .setSnapshotPosition(node.latestSnapshotPosition())
                .setLogStartPosition(node.logStartPosition());
        boolean answered = b.getNowMs() > 0;
        health.observe(answered, gateway.clusterConnected(), gateway.clusterRefusedCredentials());
        return b.setHealth(health.state()).setHealthDetail(health.detail()).setHealthSinceMs(health.sinceMs());
    }

    private void snapshotIfLeader() {
        if (role.get() == Cluster.Role.LEADER) {
            node.requestSnapshot();
        }
    }

    /** Every member deletes, on its own, the log and snapshots that all members moved past. */
    private void compactLog(PrintStream log) {
        try {
            long deleted = node.compactLog();
            if (deleted > 0) {
                log.println("tenure: deleted " + deleted + " bytes of log before position " + node.logStartPosition()
                        + " (covered by snapshots on every member)");
            }
        } catch (RuntimeException e) {
            // A failed pass deletes nothing; the next one retries.
            log.println("tenure: log compaction failed: " + e);
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

    public int adminPort() {
        return admin == null ? 0 : admin.port();
    }

    /** How this node's agents wake one another; for tests of what its role changes there. */
    AgentWakeup wakeup() {
        return node.wakeup();
    }

    public Cluster.Role role() {
        return role.get();
    }

    @Override
    public void close() {
        faults.stopping();
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
