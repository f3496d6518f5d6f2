package dev.tenure.cli;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.tenure.bench.limits.MachineLimits;
import dev.tenure.bench.load.LoadConfig;
import dev.tenure.bench.load.Workloads;
import dev.tenure.bench.report.Report;
import dev.tenure.client.TenureException;
import dev.tenure.client.spi.ClientTls;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Load against a running Tenure, and the limits of the machine it runs on. The workloads and
 * limits live in the bench module (a library this command drives); this class only turns options
 * into their configuration, finds the server processes to watch, and prints.
 */
@Command(
        name = "bench",
        description = {
            "Measures Tenure under load.",
            "Runs workloads against running nodes (or a throwaway single node started",
            "here when --endpoints is not given), and `limits`, the floors of this machine the figures are",
            "compared with (fsync, loopback round trip, gRPC, Aeron Cluster echo on 1 and 3 nodes, core apply).",
            "Workloads: uncontended, sporadic, parallel, contended, semaphore (8 permits), fenced-write, takeover, hold,",
            "watch (grant-to-event latency at --watchers watches), reads (status reads of a held lock); `all` runs",
            "them in turn."
        })
final class BenchCommand implements Callable<Integer> {

    private static final String LIMITS = "limits";
    private static final int LIMITS_CLIENTS = 32;

    @Parameters(arity = "1..*", paramLabel = "WORKLOAD", description = "What to run, in order.")
    List<String> workloads;

    @Option(
            names = {"--endpoints", "--endpoint"},
            description = "host:port[,host:port...] of the nodes (default: start a throwaway single node).")
    @Nullable
    String endpoints;

    @Option(
            names = "--clients",
            description = {
                "Concurrent clients, each with its own connection and session (default: uncontended,",
                "sporadic, fenced-write, takeover 1; parallel, semaphore and reads 32; contended 8; hold 10 connections;",
                "limits 32 in flight)."
            })
    @Nullable
    Integer clients;

    @Option(
            names = "--duration",
            description =
                    "Measured time per workload; for hold, how long the sessions are kept (default: ${DEFAULT-VALUE}).",
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
            names = "--rounds",
            description =
                    "takeover and election: kill-and-takeover or resign-and-hand-over rounds (default: ${DEFAULT-VALUE}).",
            defaultValue = "20")
    int rounds;

    @Option(
            names = "--sessions",
            description = "hold: sessions, each holding one lock (default: ${DEFAULT-VALUE}).",
            defaultValue = "10000")
    int sessions;

    @Option(
            names = "--locks-per-session",
            description = "hold: locks each session holds, to size the node per lock (default: ${DEFAULT-VALUE};"
                    + " at most the node's leasesPerSessionMax, 1000).",
            defaultValue = "1")
    int locksPerSession;

    @Option(
            names = "--ttl",
            description = "Session TTL of every bench session (default: ${DEFAULT-VALUE}).",
            defaultValue = "10s",
            converter = DurationConverter.class)
    Duration ttl;

    @Option(
            names = "--disconnect-grace",
            description = "Disconnect grace of every bench session, as tenure acquire's (default: the client's, 900ms;"
                    + " 0s is the unsafe fast handover).",
            converter = DurationConverter.class)
    @Nullable
    Duration disconnectGrace;

    @Option(
            names = "--watchers",
            description = {
                "watch: watches of the cycle's locks, timed at (default: " + LoadConfig.WATCH_WATCHERS_DEFAULT
                        + "); hold: watches of the held locks attached,",
                "to show what they cost (default: none). Other workloads take none."
            })
    @Nullable
    Integer watchers;

    @Option(
            names = "--server-pid",
            split = ",",
            description = "hold: pids of the server processes whose CPU and memory to read.")
    List<Long> serverPids = new ArrayList<>();

    @Option(
            names = "--cluster-dir",
            description = "hold: read the server pids from DIR/cluster.json (`tenure cluster start --data DIR`).")
    @Nullable
    Path clusterDir;

    @Option(
            names = "--data",
            description =
                    "limits: where the fsync file and the Aeron logs go, and where a throwaway node keeps its data; use the filesystem of the server's data (default: ${DEFAULT-VALUE}).",
            defaultValue = ".")
    Path data;

    @Option(names = "--json", description = "One JSON object per line per workload instead of a table.")
    boolean json;

    @Mixin
    TlsOptions tls;

    @Override
    public Integer call() throws Exception {
        List<String> names = expand(workloads);
        // Every option is checked before anything starts: bad input changes nothing.
        Map<String, LoadConfig> configs = configs(names, endpoints == null ? "127.0.0.1:0" : endpoints, List.of());
        ThrowawayServer throwaway = null;
        try (Progress progress = Progress.start("tenure bench")) {
            PrintStream out = progress.wrap(System.out);
            PrintStream err = progress.wrap(System.err);
            Report report = new Report(out, json);
            String target = endpoints;
            List<Long> pids = serverPids();
            if (target == null && names.stream().anyMatch(n -> !n.equals(LIMITS))) {
                throwaway = ThrowawayServer.start(data);
                target = throwaway.endpoint();
                if (pids.isEmpty()) {
                    pids = List.of(throwaway.pid());
                }
                err.printf(
                        "tenure bench: no --endpoints: started a throwaway single node on %s (pid %d, data %s);"
                                + " it is stopped and deleted at the end%n",
                        target, throwaway.pid(), throwaway.data());
            }
            configs = configs(names, target == null ? "127.0.0.1:0" : target, pids);
            for (int i = 0; i < names.size(); i++) {
                String name = names.get(i);
                LoadConfig config = Objects.requireNonNull(configs.get(name), "configs holds every name");
                progress.status(name + " (" + (i + 1) + "/" + names.size() + ")");
                err.printf(
                        "tenure bench: %s, %d client(s), %s warm-up + %s%s%n",
                        name,
                        config.clients(),
                        human(config.warmup()),
                        human(config.duration()),
                        name.equals(LIMITS) ? ", data " + data.toAbsolutePath().normalize() : " against " + target);
                if (name.equals(LIMITS)) {
                    MachineLimits.run(data, config, report);
                } else {
                    report.print(Workloads.run(name, config));
                }
            }
            return ExitCodes.OK;
        } catch (RuntimeException e) {
            TenureException t = tenureCause(e);
            throw t != null ? Failures.of(t) : e;
        } finally {
            if (throwaway != null) {
                throwaway.close();
            }
        }
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    private static List<String> expand(List<String> requested) {
        List<String> names = new ArrayList<>();
        for (String n : requested) {
            if (n.equals("all")) {
                names.addAll(Workloads.NAMES);
            } else {
                names.add(n);
            }
        }
        return names;
    }

    private Map<String, LoadConfig> configs(List<String> names, String target, List<Long> pids) {
        Map<String, LoadConfig> configs = new LinkedHashMap<>();
        ClientTls clientTls = tls.settings();
        for (String name : names) {
            if (clientTls != null && name.equals("takeover")) {
                throw new IllegalArgumentException(
                        "takeover does not run over TLS yet: its holder process connects in plaintext");
            }
            int n;
            if (name.equals(LIMITS)) {
                n = clients == null ? LIMITS_CLIENTS : clients;
            } else {
                n = clients == null ? Workloads.defaultClients(name) : clients;
                Workloads.check(name, n);
            }
            configs.put(
                    name,
                    new LoadConfig(
                            target,
                            n,
                            warmup,
                            duration,
                            rounds,
                            sessions,
                            ttl,
                            disconnectGrace,
                            pids,
                            System.err,
                            clientTls,
                            watchers(name),
                            locksPerSession));
        }
        return configs;
    }

    /** Only watch and hold attach watches; the others take none, so `all --watchers N` runs them all. */
    private int watchers(String name) {
        if (name.equals("watch")) {
            return watchers == null ? LoadConfig.WATCH_WATCHERS_DEFAULT : watchers;
        }
        if (name.equals("hold")) {
            return watchers == null ? 0 : watchers;
        }
        return 0;
    }

    private List<Long> serverPids() throws IOException {
        List<Long> pids = new ArrayList<>(serverPids);
        if (clusterDir != null) {
            Path file = clusterDir.resolve("cluster.json");
            if (!Files.exists(file)) {
                throw new IllegalArgumentException("--cluster-dir: no " + file);
            }
            JsonArray nodes = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8))
                    .getAsJsonObject()
                    .getAsJsonArray("nodes");
            for (JsonElement node : nodes) {
                pids.add(node.getAsJsonObject().get("pid").getAsLong());
            }
        }
        for (long pid : pids) {
            if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
                throw new IllegalArgumentException("server pid " + pid + " is not a running process");
            }
        }
        return pids;
    }

    private static @Nullable TenureException tenureCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TenureException te) {
                return te;
            }
        }
        return null;
    }
}
