package dev.tenure.cli;

import dev.tenure.api.StreamLimits;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.core.Limits;
import dev.tenure.gateway.Acl;
import dev.tenure.gateway.ListPaging;
import dev.tenure.server.TenureServer;
import dev.tenure.server.config.ConnectionLimits;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.fatal.Fatal;
import dev.tenure.server.security.AclFile;
import dev.tenure.server.security.ClusterSecret;
import dev.tenure.server.security.ClusterSecretFile;
import dev.tenure.server.security.TlsFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(
        name = "server",
        description = {
            "Runs one Tenure node in the foreground.",
            "Alone, it is a one-member cluster with a durable,",
            "fsynced log; with --node-id and --members it is one member of a static 3- or 5-node cluster."
        },
        // A node's own: it ends with these when it can no longer serve (FatalCause), so that its
        // supervisor restarts it; the client commands' conflicts and losses are not its to report.
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
            "143:stopped as asked by SIGTERM (130: by SIGINT)",
            "1:did not start (one line on stderr says what and where; limits its heap cannot hold too)",
            "2:bad options (also: a node beyond loopback without TLS or --cluster-secret-file, without --insecure)",
            "11:cluster member stopped (an Aeron agent failed, terminated or its thread ended)",
            "12:corrupt data file (a log or snapshot frame fails its check; one line names the file and byte)",
            "13:gateway stopped (a gRPC event loop or the gateway's channel into the log ended)",
            "14:a thread of the node died of an exception nothing caught",
            "138:out of memory (SIGUSR1 from the JVM's hook; 3 if it could not run)"
        })
final class ServerCommand implements java.util.concurrent.Callable<Integer> {

    @Option(
            names = "--json",
            description = "The serving line as one JSON object (node, endpoint, admin, tls, data, health).")
    boolean json;

    @Spec
    @Nullable
    CommandSpec spec;

    @Option(
            names = ServerConfigFile.OPTION,
            paramLabel = "FILE",
            description = {
                "Read options from this YAML file: its keys are these options' long names without the dashes",
                "(members and limits take a structure: docs/cluster.md). Options given here win over the file's."
            })
    @Nullable
    Path config;

    @Option(
            names = "--print-config",
            description = "Print the effective configuration, as a file --config takes, and exit 0.")
    boolean printConfig;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            description = {
                "The address the gRPC and admin ports listen on (default: this member's host in --members, or",
                "127.0.0.1). The host in --members is the one clients and peers are told, and Aeron's own."
            })
    @Nullable
    String bind;

    @Option(names = "--data", description = "Data directory (default: ${DEFAULT-VALUE}).", defaultValue = "tenure-data")
    Path data;

    @Option(
            names = "--port",
            description = "gRPC port for clients of a single node (default: ${DEFAULT-VALUE}).",
            defaultValue = "7420")
    int port;

    @Option(names = "--admin-port", description = "HTTP admin port, 0 to disable (default: the gRPC port + 1).")
    @Nullable
    Integer adminPort;

    @Option(
            names = "--node-id",
            description = "This node's id in --members (default: ${DEFAULT-VALUE}).",
            defaultValue = "0")
    int nodeId;

    @Option(
            names = "--members",
            description = {
                "Every member of the cluster, the same list on each node: id=host:port[@clusterPortBase],...",
                "e.g. 0=127.0.0.1:7420,1=127.0.0.1:7440,2=127.0.0.1:7460 (cluster ports default to port + 10)."
            })
    @Nullable
    String members;

    @Option(
            names = "--cluster-port-base",
            description = "Base of the five UDP ports Aeron uses between members (default: port + 10).")
    @Nullable
    Integer clusterPortBase;

    @Option(
            names = "--snapshot-interval",
            description =
                    "How often the leader snapshots its state, so restarts replay a bounded log (default: ${DEFAULT-VALUE}; 0s: never).",
            defaultValue = "10m",
            converter = DurationConverter.class)
    Duration snapshotInterval;

    @Option(
            names = "--join",
            description = {
                "This member belongs to a cluster that already holds data. If its data directory is empty",
                "(a new disk, a wiped one), wait for a peer to copy the latest snapshot and log from, however",
                "long it takes, instead of starting empty after 4 s without an answer."
            })
    boolean join;

    @Option(
            names = "--tls-cert",
            paramLabel = "FILE",
            description = {
                "This node's certificate (PEM, then any intermediates): the gRPC port serves TLS only and the",
                "admin port HTTPS only. Its subject alternative names must include the address clients use."
            })
    @Nullable
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The key of --tls-cert (unencrypted PKCS#8 PEM).")
    @Nullable
    Path tlsKey;

    @Option(
            names = "--tls-ca",
            paramLabel = "FILE",
            description = {
                "Ask every client (gRPC and admin) for a certificate signed by this CA (PEM), and refuse those",
                "without one (mTLS); the certificate's CN is the client's principal. Needs --tls-cert."
            })
    @Nullable
    Path tlsCa;

    @Option(
            names = "--acl",
            paramLabel = "FILE",
            description = {
                "Permissions per principal on name prefixes (YAML; docs/security.md): whatever it does not allow",
                "is denied. Read at start and again on SIGHUP, without dropping sessions (a principal given less",
                "has its sessions ended). Needs --tls-ca: principals are client certificates' CNs."
            })
    @Nullable
    Path acl;

    @Option(
            names = "--insecure",
            description = {
                "Accept an open node on an address beyond loopback (a --members entry that is not 127.x or ::1):",
                "without --tls-cert anyone who reaches it can take, release and write, and without",
                "--cluster-secret-file anyone who reaches its Aeron ports can write to the log. Without --insecure",
                "such a node refuses to start (exit 2). Not needed on loopback, the default."
            })
    boolean insecure;

    @Option(
            names = "--unsafe-allow-forced-release",
            description = {
                "UNSAFE. On a node without --acl, let any client force a release (`tenure release --force`),",
                "ending anyone's lease. Without it a forced release needs an ACL that grants the caller admin,",
                "and a node without one refuses it (the client exits 6)."
            })
    boolean unsafeAllowForcedRelease;

    @Option(
            names = "--cluster-secret-file",
            paramLabel = "FILE",
            description = {
                "A file holding the cluster's shared secret (at least 16 bytes; one trailing newline is dropped),",
                "the same on every member: only cluster clients that prove it (every node's gateway) may submit",
                "to the log, and only archive clients that prove it (the members) may read or change recordings.",
                "Without it any process that reaches the members' Aeron ports may. Keep it mode 600."
            })
    @Nullable
    Path clusterSecretFile;

    @Option(
            names = "--connections-max",
            paramLabel = "N",
            description = {
                "Client connections the gRPC port keeps open at once (default: ${DEFAULT-VALUE}). One more is closed as",
                "it is accepted (a reset), with a line on stderr at most every 10 s. Keep it below the open-file",
                "limit (ulimit -n): the node says at start if it is not."
            },
            defaultValue = "" + ConnectionLimits.CONNECTIONS_MAX)
    int connectionsMax;

    @Option(
            names = "--connections-per-address-max",
            paramLabel = "N",
            description = {
                "Client connections from one IP address the gRPC port keeps open at once (default: as many as",
                "--connections-max). One more from that address is closed as it is accepted. Lower it so that one",
                "host cannot take every connection; clients behind one load balancer or NAT share its address."
            })
    @Nullable
    Integer connectionsPerAddressMax;

    @Option(
            names = "--handshake-timeout",
            description = {
                "How long a new connection has to finish its TLS handshake and send HTTP/2's preface before it",
                "is closed (default: ${DEFAULT-VALUE})."
            },
            defaultValue = "10s",
            converter = DurationConverter.class)
    Duration handshakeTimeout;

    @Option(
            names = "--connection-idle-timeout",
            description = {
                "How long a connection may carry no call at all before it is sent a GOAWAY and closed (default:",
                "${DEFAULT-VALUE}). A session's stream is a call: clients with sessions are never idle."
            },
            defaultValue = "1m",
            converter = DurationConverter.class)
    Duration idleTimeout;

    @Option(
            names = "--calls-per-connection-max",
            paramLabel = "N",
            description = {
                "Calls (HTTP/2 streams) one connection may have open at once (default: ${DEFAULT-VALUE}); gRPC clients",
                "queue calls past it."
            },
            defaultValue = "" + ConnectionLimits.CALLS_PER_CONNECTION_MAX)
    int callsPerConnectionMax;

    @Option(
            names = "--watchers-max",
            paramLabel = "N",
            description = {
                "Watches this node serves at once (default: ${DEFAULT-VALUE}); one more is refused,",
                "RESOURCE_EXHAUSTED, naming watchersMax."
            },
            defaultValue = "" + dev.tenure.server.config.WatchLimits.WATCHERS_MAX)
    int watchersMax;

    @Option(
            names = "--revisions-kept-max",
            paramLabel = "N",
            description = {
                "Changes this node keeps for watches to resume from (default: ${DEFAULT-VALUE}); a watch",
                "resuming from an older revision is refused (REVISION_COMPACTED) and lists again."
            },
            defaultValue = "" + dev.tenure.server.config.WatchLimits.REVISIONS_KEPT_MAX)
    int revisionsKeptMax;

    @Option(
            names = "--calls-in-flight-max",
            paramLabel = "N",
            description = {
                "Calls one Calls stream may carry at once (default: ${DEFAULT-VALUE}); one more is refused,",
                "RESOURCE_EXHAUSTED (the Java client sends such calls as unary calls instead)."
            },
            defaultValue = "" + StreamLimits.CALLS_IN_FLIGHT_MAX)
    int callsInFlightMax;

    @Option(
            names = "--unsent-bytes-max",
            paramLabel = "SIZE",
            description = {
                "Answers one connection may have waiting for a client that does not read them (default:",
                "${DEFAULT-VALUE}); past it the call ends RESOURCE_EXHAUSTED and the connection is closed."
            },
            defaultValue = "16MiB",
            converter = SizeConverter.class)
    long unsentBytesMax;

    @Option(
            names = "--node-unsent-bytes-max",
            paramLabel = "SIZE",
            description = {
                "The same over all connections (default: an eighth of the heap); past it, the connection whose",
                "answer went past it is closed."
            },
            converter = SizeConverter.class)
    @Nullable
    Long nodeUnsentBytesMax;

    @Option(
            names = "--request-bytes-max",
            paramLabel = "SIZE",
            description = {
                "Bytes of requests one connection's calls may hold in the node at once (default: ${DEFAULT-VALUE});",
                "a unary call past it is refused RESOURCE_EXHAUSTED before its request is read, a Calls stream",
                "reads its next call once there is room. Session streams are never held back by other calls."
            },
            defaultValue = "4MiB",
            converter = SizeConverter.class)
    long requestBytesMax;

    @Option(
            names = "--node-request-bytes-max",
            paramLabel = "SIZE",
            description = {
                "The same over all connections (default: ${DEFAULT-VALUE}): what the memory estimate counts",
                "for requests in flight."
            },
            defaultValue = "16MiB",
            converter = SizeConverter.class)
    long nodeRequestBytesMax;

    @Option(
            names = "--log-bytes-per-second-max",
            paramLabel = "SIZE",
            description = {
                "Bytes of commands one client (its principal, or its address without a certificate) may add to",
                "the log per second (default: 64MiB); past it they are refused RESOURCE_EXHAUSTED before the log."
            },
            converter = SizeConverter.class)
    long logBytesPerSecondMax = ConnectionLimits.LOG_BYTES_PER_SECOND_MAX;

    @Option(
            names = "--list-page-max",
            paramLabel = "N",
            description = {
                "Locks one page of `tenure locks` (ListLocks) may carry (default: ${DEFAULT-VALUE}); a request for",
                "more is refused INVALID_ARGUMENT. This node's own setting: a page's bounds travel in its log entry."
            },
            defaultValue = "" + 1_000)
    int listPageMax;

    @Option(
            names = "--list-page-default",
            paramLabel = "N",
            description = "Locks a page carries when the request names no limit (default: ${DEFAULT-VALUE}).",
            defaultValue = "" + 500)
    int listPageDefault;

    @Option(
            names = "--list-page-bytes-max",
            paramLabel = "SIZE",
            description = {
                "A page's byte budget, by an over-count of each lock's wire size (default: ${DEFAULT-VALUE}, at most",
                "2MiB so that a page fits a client's 4 MiB message): a page ends early when the next lock would",
                "pass it."
            },
            defaultValue = "256KiB",
            converter = SizeConverter.class)
    long listPageBytesMax;

    @Option(
            names = "--limit",
            paramLabel = "NAME=VALUE",
            description = {
                "Set a limit of the state machine (repeat for more), e.g. --limit kvBytesMax=64MiB --limit",
                "sessionsMax=5000; sizes take KiB, MiB or GiB. Every member of a cluster must be given the same ones:",
                "a node whose limits differ from the ones the cluster's log holds ends (exit 2), naming both values.",
                "The names and defaults are in docs/memory.md; a node refuses to start when its limits can hold",
                "more than its heap."
            })
    Map<String, String> limits = new LinkedHashMap<>();

    @Option(
            names = "--read-lease",
            paramLabel = "DURATION",
            description = {
                "Answer reads on the leader at once, without waiting for an entry of the log, for this long after",
                "the leader last proved its quorum (at most 1s; default: off, every read proven by an entry). Every",
                "member must be given the same (it is the limit readLeaseMs); each then withholds every new",
                "term's replies, reads and watch changes for the lease and a twentieth more, which adds that much to",
                "every failover. Assumes each node's clock runs within 5% of real time. See GUARANTEES.md, section 4."
            },
            converter = DurationConverter.class)
    @Nullable
    Duration readLease;

    @Option(
            names = "--change-limits",
            description = {
                "Put this node's --limit values in force for the whole cluster where they differ from the ones its",
                "log holds, if the state holds no more than they allow (else the node ends, exit 2, naming the limit",
                "and what the state holds). Give the other members the same values before they restart."
            })
    boolean changeLimits;

    @Option(
            names = "--no-heap-check",
            description = {
                "Start even if the limits can hold more than the heap: the node may then run out of memory",
                "(exit 138) where it would refuse writes. For tests of that, and for limits no client can reach."
            })
    boolean noHeapCheck;

    @Option(
            names = "--ready-timeout",
            description = "How long to wait for the node to serve (default: ${DEFAULT-VALUE}).",
            defaultValue = "30s",
            converter = DurationConverter.class)
    Duration readyTimeout;

    @Option(
            names = "--log-format",
            paramLabel = "text|json",
            description = {
                "How the node writes its log on stderr (default: text): text is one line per event (time, level,",
                "the logger's short name, the message); json is one JSON object per line (timestamp, level,",
                "threadName, loggerName, message, formattedMessage, throwable)."
            },
            defaultValue = "text",
            converter = LogSettings.FormatConverter.class)
    LogSettings.Format logFormat;

    @Option(
            names = "--log-level",
            paramLabel = "[LOGGER=]LEVEL",
            description = {
                "The log's level (default INFO), or one logger's or package's with LOGGER=LEVEL, e.g. --log-level",
                "dev.tenure=DEBUG --log-level io.grpc=WARN (repeat for more). Levels: TRACE, DEBUG, INFO, WARN,",
                "ERROR, OFF. gRPC's and Netty's own logs follow the same levels."
            })
    List<String> logLevels = new ArrayList<>();

    @Option(
            names = "--grpc-reflection",
            negatable = true,
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "true|false",
            description = {
                "Serve gRPC server reflection (grpc.reflection.v1) on the gRPC port, so that grpcurl and the like",
                "list and call the services without the .proto files (default: ${DEFAULT-VALUE}). It tells the",
                "schema only, to any caller that passes TLS; --grpc-reflection=false turns it off."
            },
            defaultValue = "true")
    boolean grpcReflection;

    @Override
    public Integer call() throws Exception {
        // First of all: every line the node writes from here on is in the format asked for, and
        // a bad level is refused (exit 2) before anything starts.
        ServerLogging.configure(LogSettings.of(logFormat, logLevels));
        Fatal.warnIfOutOfMemoryUnarmed();
        ServerConfig config = config().withSnapshotInterval(snapshotInterval)
                .withLimits(
                        LimitOptions.withReadLease(LimitOptions.apply(Limits.defaults(), limits), limits, readLease))
                .withHeapCheck(!noHeapCheck)
                .withChangeLimits(changeLimits)
                .withJoin(join)
                .withTls(tlsFiles(tlsCert, tlsKey, tlsCa))
                .withClusterSecret(clusterSecret())
                .withConnections(connectionLimits())
                .withListPaging(new ListPaging(listPageMax, listPageDefault, listPageBytesMax))
                .withWatch(new dev.tenure.server.config.WatchLimits(watchersMax, revisionsKeptMax))
                .withInsecure(insecure)
                .withForcedReleaseWithoutAcl(unsafeAllowForcedRelease)
                .withGrpcReflection(grpcReflection);
        if (bind != null) {
            String address = bind;
            config = config.with(c -> c.bindHost = address);
        }
        if (printConfig) {
            System.out.print(EffectiveConfig.yaml(Objects.requireNonNull(spec, "set by picocli"), config));
            return 0;
        }
        Acl initialAcl = acl == null
                ? Acl.OPEN
                : aclFile(acl, config.tls() != null && config.tls().clientCertificates());
        CountDownLatch stop = new CountDownLatch(1);
        if (acl == null) {
            AclReload.ignoreHangUp();
        }
        TenureServer server = TenureServer.start(config, Fatal::exit, initialAcl);
        if (acl != null) {
            AclReload.onHangUp(acl, server);
        }
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            Fatal.stopping();
                            server.close();
                            stop.countDown();
                        },
                        "tenure-shutdown"));
        // A lone node is ready once it serves; a member needs a quorum of peers that may not be
        // up yet, so it reports what it has at once (`tenure cluster start` waits for a leader).
        ServerStatusResponse status = config.members().size() == 1 ? awaitReady(server) : server.status();
        announce(config, server, status);
        System.out.flush();
        stop.await();
        return 0;
    }

    /** The one line a node prints once it serves: what scripts and `tenure cluster start` wait for. */
    private void announce(ServerConfig config, TenureServer server, ServerStatusResponse status) {
        String admin = config.adminPort() == 0 ? "off" : config.bindHost() + ":" + server.adminPort();
        if (json) {
            com.google.gson.JsonObject o = new com.google.gson.JsonObject();
            o.addProperty("node", config.nodeId());
            o.addProperty("endpoint", config.self().endpoint());
            o.addProperty("admin", admin);
            o.addProperty(
                    "tls",
                    config.tls() == null ? "off" : config.tls().clientCertificates() ? "client-certificates" : "on");
            o.addProperty("data", data.toAbsolutePath().normalize().toString());
            o.addProperty("health", status.getHealth());
            System.out.println(Json.line(o));
            return;
        }
        System.out.printf(
                "tenure: node %d serving on %s (admin %s%s), data %s, health %s%n",
                config.nodeId(),
                config.self().endpoint(),
                admin,
                config.tls() == null
                        ? ""
                        : config.tls().clientCertificates() ? "; TLS, client certificates required" : "; TLS",
                data.toAbsolutePath().normalize(),
                status.getHealth());
    }

    /** What the options give client connections; a bound that is not positive is bad input. */
    ConnectionLimits connectionLimits() {
        return new ConnectionLimits(
                connectionsMax,
                connectionsPerAddressMax == null ? connectionsMax : connectionsPerAddressMax,
                handshakeTimeout,
                idleTimeout,
                callsPerConnectionMax,
                callsInFlightMax,
                unsentBytesMax,
                nodeUnsentBytesMax == null ? ConnectionLimits.nodeUnsentBytesMaxDefault() : nodeUnsentBytesMax,
                requestBytesMax,
                nodeRequestBytesMax,
                logBytesPerSecondMax);
    }

    /** The ACL in {@code file}; bad input (exit 2, one line) if it cannot be used or read. */
    static Acl aclFile(Path file, boolean clientCertificates) {
        if (!clientCertificates) {
            throw new IllegalArgumentException(
                    "--acl needs --tls-ca: an ACL grants principals, and a principal is a client certificate's CN");
        }
        try {
            return AclFile.read(file);
        } catch (AclFile.BadAclException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    /** The TLS files given, or null for plaintext; options that cannot go together are bad input. */
    static @Nullable TlsFiles tlsFiles(@Nullable Path cert, @Nullable Path key, @Nullable Path ca) {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together: give both or neither");
        }
        if (cert == null) {
            if (ca != null) {
                throw new IllegalArgumentException("--tls-ca needs --tls-cert and --tls-key: client certificates"
                        + " are asked for over TLS only");
            }
            return null;
        }
        return new TlsFiles(
                absolute(cert),
                absolute(Objects.requireNonNull(key, "given with --tls-cert: checked above")),
                ca == null ? null : absolute(ca));
    }

    private static Path absolute(Path file) {
        return file.toAbsolutePath().normalize();
    }

    /** The secret in --cluster-secret-file, or null without it; a bad file stops the start here (exit 2). */
    private @Nullable ClusterSecret clusterSecret() {
        if (clusterSecretFile == null) {
            return null;
        }
        return ClusterSecretFile.read(clusterSecretFile, warning -> System.err.println("tenure: " + warning));
    }

    private ServerConfig config() {
        if (members == null) {
            return ServerConfig.singleNode(
                    data,
                    port,
                    adminPort == null ? port + 1 : adminPort,
                    clusterPortBase == null ? port + 10 : clusterPortBase);
        }
        if (clusterPortBase != null) {
            throw new IllegalArgumentException(
                    "with --members, give cluster ports in the member list (id=host:port@base)");
        }
        List<ServerConfig.Member> all = ServerConfig.parseMembers(members);
        ServerConfig.Member self = all.stream()
                .filter(m -> m.id() == nodeId)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("--node-id " + nodeId + " is not in --members"));
        return ServerConfig.member(nodeId, all, data, adminPort == null ? self.port() + 1 : adminPort);
    }

    private ServerStatusResponse awaitReady(TenureServer server) throws InterruptedException {
        long deadline = System.nanoTime() + readyTimeout.toNanos();
        ServerStatusResponse status = server.status();
        while (!"ok".equals(status.getHealth()) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
            status = server.status();
        }
        return status;
    }
}
