package dev.tenure.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.lab.process.LocalCluster;
import dev.tenure.server.clusterauth.ClusterSecretFile;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** A local cluster of `tenure server` processes, for trying Tenure out and for tests. */
@Command(
        name = "cluster",
        description = "Starts and stops a local cluster of node processes.",
        subcommands = {ClusterCommand.Start.class, ClusterCommand.Stop.class})
final class ClusterCommand {

    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().create();

    @Command(
            name = "start",
            description = {
                "Starts the nodes of a local cluster in the background and waits until a leader is elected.",
                "Run again on the same --data, it restarts the nodes that are not running (same identity and data;",
                "the layout in DIR/cluster.json wins over --nodes and --base-port)."
            })
    static final class Start implements Callable<Integer> {
        @Option(names = "--nodes", description = "3 or 5 (default: ${DEFAULT-VALUE}).", defaultValue = "3")
        int nodes;

        @Option(
                names = "--data",
                required = true,
                description = "Directory for every node's data, logs and the cluster file.")
        Path data;

        @Option(
                names = "--base-port",
                description = "Node i serves clients on base + 20*i (default: ${DEFAULT-VALUE}).",
                defaultValue = "7420")
        int basePort;

        @Option(
                names = "--host",
                description = "Address the nodes listen on (default: ${DEFAULT-VALUE}).",
                defaultValue = "127.0.0.1")
        String host;

        @Option(
                names = "--timeout",
                description = "How long to wait for a leader (default: ${DEFAULT-VALUE}).",
                defaultValue = "60s",
                converter = DurationConverter.class)
        Duration timeout;

        @Option(
                names = "--snapshot-interval",
                description = "Passed to every node (default: the server's).",
                converter = DurationConverter.class)
        Duration snapshotInterval;

        @Option(names = "--json", description = "Print one JSON line.")
        boolean json;

        @Option(
                names = "--cluster-secret-file",
                paramLabel = "FILE",
                description = {
                    "Passed to every node (see `tenure server --help`), and to the nodes of later starts of this",
                    "cluster without it. Checked here first: a bad file starts no node."
                })
        Path clusterSecretFile;

        @Override
        public Integer call() throws IOException, InterruptedException {
            LocalCluster cluster =
                    LocalCluster.load(data).orElseGet(() -> LocalCluster.plan(data, nodes, basePort, host));
            // A cluster started with a secret keeps it: a node restarted without it (or with
            // other options only) could not reach its peers' log, and would let anyone into its own.
            Path secretFile = clusterSecretFile != null
                    ? clusterSecretFile.toAbsolutePath().normalize()
                    : optionValue(cluster.serverOptions(), CLUSTER_SECRET_FILE);
            if (secretFile != null) {
                ClusterSecretFile.read(secretFile, warning -> System.err.println("tenure: " + warning));
            }
            cluster.startMissing(SelfLauncher::javaCommand, serverOptions(secretFile));
            cluster.save();
            if (!cluster.awaitLeader(timeout)) {
                throw new CliException(
                        ExitCodes.UNAVAILABLE,
                        "the cluster did not elect a leader with every node serving within " + timeout.toSeconds()
                                + " s; see " + data.resolve("node-*.log"));
            }
            JsonObject out = describe(cluster);
            if (json) {
                System.out.println(GSON.toJson(out));
            } else {
                System.out.println(
                        "cluster of " + cluster.nodes().size() + " nodes up; endpoints " + cluster.endpoints());
                for (LocalCluster.Node n : cluster.nodes()) {
                    System.out.printf(
                            "  node %d pid %d %s, log %s%n", n.id(), n.pid(), n.endpoint(), cluster.logFile(n));
                }
            }
            return ExitCodes.OK;
        }

        /**
         * The options every node gets. Options given replace the stored ones
         * (LocalCluster.startMissing); with none given the stored ones, the secret file included,
         * are used again, so the secret file is added whenever other options are.
         */
        private List<String> serverOptions(Path secretFile) {
            List<String> options = new ArrayList<>();
            if (snapshotInterval != null) {
                options.addAll(List.of("--snapshot-interval", snapshotInterval.toMillis() + "ms"));
            }
            if (secretFile != null && (!options.isEmpty() || clusterSecretFile != null)) {
                options.addAll(List.of(CLUSTER_SECRET_FILE, secretFile.toString()));
            }
            return options;
        }
    }

    private static final String CLUSTER_SECRET_FILE = "--cluster-secret-file";

    private static Path optionValue(List<String> options, String name) {
        int i = options.indexOf(name);
        return i < 0 || i + 1 >= options.size() ? null : Path.of(options.get(i + 1));
    }

    @Command(
            name = "stop",
            description = "Stops every node of the local cluster in --data (SIGTERM, then SIGKILL after 10 s).")
    static final class Stop implements Callable<Integer> {
        @Option(names = "--data", required = true, description = "The directory given to `cluster start`.")
        Path data;

        @Override
        public Integer call() throws IOException {
            LocalCluster cluster =
                    LocalCluster.load(data).orElseThrow(() -> new IllegalArgumentException("no cluster in " + data));
            int stopped = cluster.stopAll(Duration.ofSeconds(10));
            System.out.println("stopped " + stopped + " node(s)");
            return ExitCodes.OK;
        }
    }

    static JsonObject describe(LocalCluster cluster) {
        JsonObject out = new JsonObject();
        out.addProperty("endpoints", cluster.endpoints());
        JsonArray nodes = new JsonArray();
        for (LocalCluster.Node n : cluster.nodes()) {
            JsonObject node = new JsonObject();
            node.addProperty("id", n.id());
            node.addProperty("pid", n.pid());
            node.addProperty("endpoint", n.endpoint());
            nodes.add(node);
        }
        out.add("nodes", nodes);
        return out;
    }
}
