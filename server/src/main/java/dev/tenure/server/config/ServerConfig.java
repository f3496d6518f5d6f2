package dev.tenure.server.config;

import dev.tenure.core.Limits;
import dev.tenure.gateway.ListPaging;
import dev.tenure.server.security.ClusterSecret;
import dev.tenure.server.security.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Everything one node needs to start. A single node is a one-member cluster: the same code path
 * as three or five members.
 *
 * @param nodeId this node's member id
 * @param members every member of the cluster, this one included, in id order
 * @param dataDir where the log, archive and snapshots live
 * @param bindHost the address the gateway and admin endpoints listen on
 * @param adminPort HTTP admin endpoint (health, status); 0 disables it
 * @param keepAliveBatch how long the gateway collects renewals before writing them as one log entry
 * @param requestTimeout how long a request waits for the cluster before failing UNAVAILABLE
 * @param messageBytesMax the largest gRPC message the gateway accepts
 * @param snapshotInterval how often the leader takes a snapshot, so a restart or a new member
 *     replays a bounded log; zero disables it
 * @param join this member belongs to a cluster that already holds data: with an empty data
 *     directory it waits for a peer to copy from instead of starting empty (see {@link #withJoin})
 * @param tls the gRPC and admin ports' TLS files; null serves both in plaintext
 * @param clusterSecret what every cluster client of this node's consensus module must prove it
 *     holds, and what this node's own clients prove with; null admits any client (see {@link
 *     #withClusterSecret})
 * @param connections what the gRPC port gives client connections (see {@link ConnectionLimits})
 * @param listPaging how large a page of the lock listing this node's gateway serves (see {@link
 *     ListPaging}); a node's own setting, as the page's bounds travel in the log entry
 * @param heapCheck refuse to start when the limits can hold more than the heap (see {@code
 *     MemoryBudget}); true unless asked otherwise
 * @param changeLimits put {@code limits} in force for the whole cluster where they differ from the
 *     ones its log holds, instead of refusing to start (see {@link #withChangeLimits})
 * @param insecure serve plaintext on an address beyond loopback: without it (and without {@code
 *     tls}) such a node refuses to start (see {@link #withInsecure})
 * @param forcedReleaseWithoutAcl without an ACL, let any caller force a release: unsafe, false
 *     unless asked (see {@link #withForcedReleaseWithoutAcl})
 * @param watch what the node gives watches (see {@link WatchLimits})
 * @param grpcReflection serve gRPC server reflection on the client port (see {@link #withGrpcReflection})
 */
public record ServerConfig(
        int nodeId,
        List<Member> members,
        Path dataDir,
        String bindHost,
        int adminPort,
        Duration keepAliveBatch,
        Duration requestTimeout,
        int messageBytesMax,
        Limits limits,
        Duration leaderHeartbeatTimeout,
        Duration leaderHeartbeatInterval,
        Duration snapshotInterval,
        boolean join,
        @Nullable TlsFiles tls,
        @Nullable ClusterSecret clusterSecret,
        ConnectionLimits connections,
        ListPaging listPaging,
        boolean heapCheck,
        boolean changeLimits,
        boolean insecure,
        boolean forcedReleaseWithoutAcl,
        WatchLimits watch,
        boolean grpcReflection) {

    public static final int DEFAULT_PORT = 7420;
    public static final int DEFAULT_ADMIN_PORT = 7421;

    public ServerConfig {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(connections, "connections");
        Objects.requireNonNull(listPaging, "listPaging");
        members = List.copyOf(members);
        if (members.stream().noneMatch(m -> m.id() == nodeId)) {
            throw new IllegalArgumentException("node id " + nodeId + " is not among the members " + members);
        }
        if (messageBytesMax < limits.valueBytesMax() + 4096) {
            throw new IllegalArgumentException("messageBytesMax must leave room for valueBytesMax plus headers");
        }
    }

    /** One node on loopback with the default ports and limits: what `tenure server` starts. */
    public static ServerConfig singleNode(Path dataDir, int port, int adminPort, int aeronPortBase) {
        return member(0, List.of(new Member(0, "127.0.0.1", port, aeronPortBase)), dataDir, adminPort);
    }

    /** Member {@code nodeId} of a static cluster of {@code members}, with the default timings and limits. */
    public static ServerConfig member(int nodeId, List<Member> members, Path dataDir, int adminPort) {
        return new ServerConfig(
                nodeId,
                members,
                dataDir,
                members.stream()
                        .filter(m -> m.id() == nodeId)
                        .findFirst()
                        .map(Member::host)
                        .orElse("127.0.0.1"),
                adminPort,
                Duration.ofMillis(10),
                // Fail fast: without a quorum a request gets UNAVAILABLE after this, never hangs.
                Duration.ofMillis(1500),
                messageBytesMaxFor(Limits.defaults()),
                Limits.defaults(),
                // Well below the shortest TTL clients use: a dead leader is replaced in about a
                // second instead of Aeron's default ten; six heartbeat intervals, so a leader
                // starved for half a second on a busy machine is not deposed.
                Duration.ofMillis(600),
                Duration.ofMillis(100),
                Duration.ofMinutes(10),
                false,
                null,
                null,
                ConnectionLimits.defaults(),
                ListPaging.DEFAULTS,
                true,
                false,
                false,
                false,
                WatchLimits.defaults(),
                // On: it tells a caller the schema of the services it can already call, nothing of
                // their state, and lets grpcurl and its kind work without the .proto files.
                true);
    }

    /**
     * Parses {@code id=host:port[@clusterPortBase],...}; the cluster port base defaults to port + 10.
     * Every member of a cluster must be given the same list.
     */
    public static List<Member> parseMembers(String spec) {
        List<Member> members = new java.util.ArrayList<>();
        for (String part : spec.split(",", 0)) {
            String item = part.trim();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)=([^:@]+):(\\d+)(?:@(\\d+))?")
                    .matcher(item);
            if (!m.matches()) {
                throw new IllegalArgumentException(
                        "member '" + item + "' is not id=host:port[@clusterPortBase], e.g. 0=127.0.0.1:7420");
            }
            int port = Integer.parseInt(m.group(3));
            int base = m.group(4) == null ? port + 10 : Integer.parseInt(m.group(4));
            members.add(new Member(Integer.parseInt(m.group(1)), m.group(2), port, base));
        }
        members.sort(java.util.Comparator.comparingInt(Member::id));
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).id() != i) {
                throw new IllegalArgumentException("member ids must be 0.." + (members.size() - 1) + ", got " + spec);
            }
        }
        if (members.size() != 1 && members.size() != 3 && members.size() != 5) {
            throw new IllegalArgumentException("a cluster has 1, 3 or 5 members, got " + members.size());
        }
        return List.copyOf(members);
    }

    /** The gRPC endpoints of all members, as clients take them: host:port,host:port,... */
    public String clientEndpoints() {
        return String.join(",", members.stream().map(Member::endpoint).toList());
    }

    public Member self() {
        return members.stream().filter(m -> m.id() == nodeId).findFirst().orElseThrow();
    }

    public ServerConfig withSnapshotInterval(Duration interval) {
        return with(c -> c.snapshotInterval = interval);
    }

    /**
     * A member of a cluster that already holds data: with an empty data directory it waits for a
     * peer to copy from, however long that takes, instead of starting an empty log that could not
     * catch up with peers that deleted their old log.
     */
    public ServerConfig withJoin(boolean join) {
        return with(c -> c.join = join);
    }

    /** This node's ports with TLS from {@code files} (null: plaintext). */
    public ServerConfig withTls(@Nullable TlsFiles files) {
        return with(c -> c.tls = files);
    }

    /**
     * Cluster clients must prove {@code secret} to this node's consensus module, and this node's
     * gateway (and its copy from peers when its data directory is empty) proves it to the others':
     * every member of a cluster is given the same one. Null admits any client, as without the
     * option: safe only where nothing else can reach the members' ports.
     */
    public ServerConfig withClusterSecret(@Nullable ClusterSecret secret) {
        return with(c -> c.clusterSecret = secret);
    }

    /** This node's watches get {@code next}: how many at once, how many changes kept to resume from. */
    public ServerConfig withWatch(WatchLimits next) {
        return with(c -> c.watch = next);
    }

    /** This node's client connections get {@code next}: how many, how idle, how many calls, how much unread. */
    public ServerConfig withConnections(ConnectionLimits next) {
        return with(c -> c.connections = next);
    }

    /** This node's lock listing serves pages within {@code next}. */
    public ServerConfig withListPaging(ListPaging next) {
        return with(c -> c.listPaging = next);
    }

    /**
     * These limits instead of the defaults; the largest gRPC message follows valueBytesMax, as it
     * does by default. Every member of a cluster must be given the same ones.
     */
    public ServerConfig withLimits(Limits next) {
        return with(c -> {
            c.limits = next;
            c.messageBytesMax = messageBytesMaxFor(next);
        });
    }

    /**
     * False: start even if the limits can hold more than the heap. The node may then run out of
     * memory (and end, status 138) where it would otherwise refuse writes.
     */
    public ServerConfig withHeapCheck(boolean check) {
        return with(c -> c.heapCheck = check);
    }

    /**
     * True: where this node's limits differ from the ones the cluster's log holds, it puts its own
     * in force for every member (if the state holds no more than they allow) instead of refusing
     * to start. The other members apply them at once, and must be given them before they restart.
     */
    public ServerConfig withChangeLimits(boolean change) {
        return with(c -> c.changeLimits = change);
    }

    /**
     * True: serve plaintext even on an address beyond loopback, where anyone who reaches it can
     * take, release and write. Without it such a node refuses to start: an open node is a choice
     * the operator typed (--insecure), never an accident of a --members entry.
     */
    public ServerConfig withInsecure(boolean open) {
        return with(c -> c.insecure = open);
    }

    /**
     * True: on a node without an ACL, any caller may force a release (end another session's
     * lease). Unsafe: without an ACL callers are anonymous, so "admin only" cannot hold.
     */
    public ServerConfig withForcedReleaseWithoutAcl(boolean allow) {
        return with(c -> c.forcedReleaseWithoutAcl = allow);
    }

    /**
     * False: the client port does not serve gRPC server reflection (grpc.reflection.v1), and a
     * reflection call ends UNIMPLEMENTED like any unknown service's.
     */
    public ServerConfig withGrpcReflection(boolean serve) {
        return with(c -> c.grpcReflection = serve);
    }

    /**
     * A copy with what {@code change} sets, checked as the constructor checks: one place that
     * names every component, so a new one is added there and in {@link Changes} only.
     */
    public ServerConfig with(Consumer<Changes> change) {
        Changes c = new Changes(this);
        change.accept(c);
        return c.build();
    }

    /** The largest gRPC message a node accepts under {@code limits}: their largest value and room for the rest. */
    public static int messageBytesMaxFor(Limits limits) {
        return limits.valueBytesMax() + 64 * 1024;
    }

    /** The components of a {@link ServerConfig}, as {@link #with} lets a change set them. */
    public static final class Changes {
        public int nodeId;
        public List<Member> members;
        public Path dataDir;
        public String bindHost;
        public int adminPort;
        public Duration keepAliveBatch;
        public Duration requestTimeout;
        public int messageBytesMax;
        public Limits limits;
        public Duration leaderHeartbeatTimeout;
        public Duration leaderHeartbeatInterval;
        public Duration snapshotInterval;
        public boolean join;
        public @Nullable TlsFiles tls;
        public @Nullable ClusterSecret clusterSecret;
        public ConnectionLimits connections;
        public ListPaging listPaging;
        public boolean heapCheck;
        public boolean changeLimits;
        public boolean insecure;
        public boolean forcedReleaseWithoutAcl;
        public WatchLimits watch;
        public boolean grpcReflection;

        private Changes(ServerConfig c) {
            nodeId = c.nodeId;
            members = c.members;
            dataDir = c.dataDir;
            bindHost = c.bindHost;
            adminPort = c.adminPort;
            keepAliveBatch = c.keepAliveBatch;
            requestTimeout = c.requestTimeout;
            messageBytesMax = c.messageBytesMax;
            limits = c.limits;
            leaderHeartbeatTimeout = c.leaderHeartbeatTimeout;
            leaderHeartbeatInterval = c.leaderHeartbeatInterval;
            snapshotInterval = c.snapshotInterval;
            join = c.join;
            tls = c.tls;
            clusterSecret = c.clusterSecret;
            connections = c.connections;
            listPaging = c.listPaging;
            heapCheck = c.heapCheck;
            changeLimits = c.changeLimits;
            insecure = c.insecure;
            forcedReleaseWithoutAcl = c.forcedReleaseWithoutAcl;
            watch = c.watch;
            grpcReflection = c.grpcReflection;
        }

        private ServerConfig build() {
            return new ServerConfig(
                    nodeId,
                    members,
                    dataDir,
                    bindHost,
                    adminPort,
                    keepAliveBatch,
                    requestTimeout,
                    messageBytesMax,
                    limits,
                    leaderHeartbeatTimeout,
                    leaderHeartbeatInterval,
                    snapshotInterval,
                    join,
                    tls,
                    clusterSecret,
                    connections,
                    listPaging,
                    heapCheck,
                    changeLimits,
                    insecure,
                    forcedReleaseWithoutAcl,
                    watch,
                    grpcReflection);
        }
    }

    /**
     * One cluster member. Aeron needs five endpoints per member; they are derived from
     * {@code aeronPortBase}: archive control +1, ingress +2, consensus +3, log +4, catch-up +5.
     *
     * @param port the member's gRPC gateway port, the address clients use
     */
    public record Member(int id, String host, int port, int aeronPortBase) {

        public String endpoint() {
            return host + ":" + port;
        }

        public int archivePort() {
            return aeronPortBase + 1;
        }

        public int ingressPort() {
            return aeronPortBase + 2;
        }

        public int consensusPort() {
            return aeronPortBase + 3;
        }

        public int logPort() {
            return aeronPortBase + 4;
        }

        public int catchupPort() {
            return aeronPortBase + 5;
        }
    }
}
