package dev.tenure.peers;

import com.google.common.base.Splitter;
import com.google.common.net.HostAndPort;
import dev.tenure.bench.load.LoadConfig;
import dev.tenure.bench.load.Workloads;
import dev.tenure.bench.report.Report;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Runs bench's {@code uncontended} and {@code parallel} against etcd or ZooKeeper and prints the
 * figures as {@code tenure bench} does (a table, or with {@code --json} one JSON object per line in
 * the same shape, with {@code system} added). {@code bench/side-by-side.sh} starts the servers.
 */
@Command(
        name = "tenure-peers",
        mixinStandardHelpOptions = true,
        version = "tenure-peers 0.1.0",
        description = {
            "Runs tenure bench's uncontended and parallel workloads against etcd (--etcd) or ZooKeeper",
            "(--zookeeper): each client its own connection and session, each its own lock; one cycle is",
            "etcd's Lock + Unlock, or Curator's InterProcessMutex acquire + release."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:ok", "1:unexpected error (or no cycle succeeded)", "2:bad input"})
public final class PeersCommand implements Callable<Integer> {

    static final int OK = 0;
    static final int UNEXPECTED = 1;
    static final int BAD_INPUT = 2;

    @Parameters(arity = "1..*", paramLabel = "WORKLOAD", description = "uncontended or parallel, run in order.")
    List<String> workloads;

    @Option(names = "--etcd", paramLabel = "HOST:PORT[,...]", description = "etcd's client endpoints.")
    @Nullable
    String etcd;

    @Option(names = "--zookeeper", paramLabel = "HOST:PORT[,...]", description = "ZooKeeper's client endpoints.")
    @Nullable
    String zookeeper;

    @Option(
            names = "--clients",
            description = "Concurrent clients, each with its own connection and session (default: uncontended 1,"
                    + " parallel 32).")
    @Nullable
    Integer clients;

    @Option(
            names = "--duration",
            description = "Measured time per workload (default: ${DEFAULT-VALUE}).",
            defaultValue = "10s",
            converter = DurationConverter.class)
    Duration duration;

    @Option(
            names = "--warmup",
            description = "Load before measuring starts (default: ${DEFAULT-VALUE}).",
            defaultValue = "3s",
            converter = DurationConverter.class)
    Duration warmup;

    @Option(
            names = "--ttl",
            description = "Every client's session TTL: the etcd lease's TTL (whole seconds), ZooKeeper's session"
                    + " timeout (default: ${DEFAULT-VALUE}, as tenure bench's).",
            defaultValue = "10s",
            converter = DurationConverter.class)
    Duration ttl;

    @Option(names = "--json", description = "One JSON object per line per workload instead of a table.")
    boolean json;

    public static void main(String[] args) {
        System.exit(run(new PrintWriter(System.err, true, Charset.defaultCharset()), args));
    }

    /** Runs {@code args} with picocli's and the command's error messages going to {@code err}. */
    static int run(PrintWriter err, String... args) {
        CommandLine cli = new CommandLine(new PeersCommand());
        cli.setErr(err);
        cli.setExitCodeExceptionMapper(PeersCommand::exitCode);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("tenure-peers: " + e.getMessage());
            return exitCode(e);
        });
        return cli.execute(args);
    }

    private static int exitCode(Throwable e) {
        return e instanceof IllegalArgumentException ? BAD_INPUT : UNEXPECTED;
    }

    @Override
    public Integer call() throws Exception {
        // Every option is checked before any connection is opened: bad input changes nothing.
        Peer peer = peer();
        String endpoints = etcd != null ? etcd : Objects.requireNonNull(zookeeper, "peer() checked one is given");
        Map<String, LoadConfig> configs = new LinkedHashMap<>();
        for (String name : workloads) {
            if (!PeerWorkload.NAMES.contains(name)) {
                throw new IllegalArgumentException(
                        "unknown workload '" + name + "'; choose from " + String.join(", ", PeerWorkload.NAMES));
            }
            int n = clients == null ? Workloads.defaultClients(name) : clients;
            Workloads.check(name, n);
            configs.put(
                    name, new LoadConfig(endpoints, n, warmup, duration, 1, 1, ttl, null, List.of(), System.err, null));
        }
        Report report = new Report(System.out, json);
        for (Map.Entry<String, LoadConfig> e : configs.entrySet()) {
            LoadConfig config = e.getValue();
            System.err.printf(
                    "tenure-peers: %s against %s, %d client(s), %s warm-up + %s%n",
                    e.getKey(), peer.name(), config.clients(), human(config.warmup()), human(config.duration()));
            report.print(PeerWorkload.run(peer, e.getKey(), config));
        }
        return OK;
    }

    /** 20s, 1m30s, 500ms: ISO-8601's PT20S without its prefix. */
    private static String human(Duration d) {
        return d.toString().substring(2).toLowerCase(Locale.ROOT);
    }

    private Peer peer() {
        if ((etcd == null) == (zookeeper == null)) {
            throw new IllegalArgumentException(
                    "name exactly one peer: --etcd HOST:PORT[,...] or --zookeeper HOST:PORT[,...]");
        }
        if (ttl.toMillis() % 1000 != 0) {
            throw new IllegalArgumentException("--ttl must be whole seconds (an etcd lease's TTL is), was " + ttl);
        }
        return etcd != null
                ? new EtcdPeer(endpoints("--etcd", etcd), ttl)
                : new ZooKeeperPeer(endpoints("--zookeeper", zookeeper), ttl);
    }

    /** {@code host:port[,host:port...]}, each with a port. */
    static List<HostAndPort> endpoints(String option, @Nullable String list) {
        List<HostAndPort> endpoints = new ArrayList<>();
        for (String s : Splitter.on(',').trimResults().splitToList(list == null ? "" : list)) {
            try {
                HostAndPort hp = HostAndPort.fromString(s);
                if (!hp.hasPort() || hp.getHost().isEmpty()) {
                    throw new IllegalArgumentException("no host or no port");
                }
                endpoints.add(hp);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        option + " takes host:port[,host:port...]; '" + s + "' is not host:port", e);
            }
        }
        return endpoints;
    }
}
