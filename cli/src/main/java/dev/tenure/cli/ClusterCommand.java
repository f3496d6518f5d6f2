package dev.tenure.cli;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import dev.tenure.cli.ExitCodes.CliException;
import dev.tenure.client.TenureException;
import dev.tenure.client.spi.ClientTls;
import dev.tenure.lab.process.LocalCluster;
import dev.tenure.server.security.ClusterSecretFile;
import dev.tenure.server.security.TlsFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
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
        @Nullable
        Duration snapshotInterval;

        @Option(
                names = "--read-lease",
                paramLabel = "DURATION",
                description = "Passed to every node (see `tenure server --help`; default: off).",
                converter = DurationConverter.class)
        @Nullable
        Duration readLease;

        @Option(
                names = "--connections-max",
                paramLabel = "N",
                description =
                        "Passed to every node (default: the server's): client connections each keeps open at once.")
        @Nullable
        Integer connectionsMax;

        @Option(
                names = "--connections-per-address-max",
                paramLabel = "N",
                description = "Passed to every node (default: the server's): client connections from one IP address"
                        + " each keeps open at once.")
        @Nullable
        Integer connectionsPerAddressMax;

        @Option(names = "--json", description = "Print one JSON line.")
        boolean json;

        @Option(
                names = "--insecure",
                description =
                        "Passed to every node: serve plaintext on a --host beyond loopback (see `tenure server --help`).")
        boolean insecure;

        @Option(
                names = "--unsafe-allow-forced-release",
                description = "UNSAFE. Passed to every node: without --acl, any client may force a release.")
        boolean unsafeAllowForcedRelease;

        @Option(
                names = "--tls-cert",
                paramLabel = "FILE",
                description = "Passed to every node, as --tls-key and --tls-ca: see `tenure server --help`.")
        @Nullable
        Path tlsCert;

        @Option(names = "--tls-key", paramLabel = "FILE", description = "Passed to every node.")
        @Nullable
        Path tlsKey;

        @Option(
                names = "--tls-ca",
                paramLabel = "FILE",
                description = {
                    "Passed to every node. This command then checks the nodes' health trusting this CA and",
                    "presenting the nodes' certificate, so it must sign the nodes' certificates too."
                })
        @Nullable
        Path tlsCa;

        @Option(
                names = "--cluster-secret-file",
                paramLabel = "FILE",
                description = {
                    "Passed to every node (see `tenure server --help`), and to the nodes of later starts of this",
                    "cluster without it. Checked here first: a bad file starts no node."
                })
        @Nullable
        Path clusterSecretFile;

        @Option(
                names = "--acl",
                paramLabel = "FILE",
                description = {
                    "Passed to every node (see `tenure server --help`; needs --tls-ca), and to the nodes of later",
                    "starts of this cluster without it. Checked here first. This command checks the nodes' health",
                    "with the nodes' certificate, so the file must give its CN `monitor`."
                })
        @Nullable
        Path acl;

        @Override
        public Integer call() throws IOException, InterruptedException {
            LocalCluster cluster =
                    LocalCluster.load(data).orElseGet(() -> LocalCluster.plan(data, nodes, basePort, host));
            TlsFiles tls = ServerCommand.tlsFiles(tlsCert, tlsKey, tlsCa);
            if (tls == null) {
                // A cluster started with TLS keeps it: a restart without the options (or with
                // others) must neither bring a node back in plaintext nor check it in plaintext.
                tls = storedTls(cluster.serverOptions());
            }
            // A cluster started with a secret keeps it too: a node restarted without it could not
            // reach its peers' log, and would let anyone into its own.
            Path secretFile = clusterSecretFile != null
                    ? clusterSecretFile.toAbsolutePath().normalize()
                    : optionValue(cluster.serverOptions(), CLUSTER_SECRET_FILE);
            if (secretFile != null) {
                ClusterSecretFile.read(secretFile, warning -> System.err.println("tenure: " + warning));
            }
            // So is an ACL: a node restarted without it would allow everything.
            Path aclFile = acl != null ? acl.toAbsolutePath().normalize() : optionValue(cluster.serverOptions(), ACL);
            if (aclFile != null) {
                ServerCommand.aclFile(aclFile, tls != null && tls.clientCa() != null);
            }
            ClientTls healthCheck = healthCheckTls(tls);
            boolean up;
            try (Progress progress = Progress.start("tenure cluster start")) {
                progress.status("starting " + cluster.nodes().size() + " nodes in " + data);
                cluster.startMissing(SelfLauncher::javaCommand, serverOptions(tls, secretFile, aclFile));
                cluster.save();
                progress.status("waiting for a leader, every node serving");
                up = cluster.awaitLeader(timeout, healthCheck);
            } catch (TenureException e) { // DENIED: LocalCluster throws nothing else
                throw Failures.of(e);
            }
            if (!up) {
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
         * (LocalCluster.startMissing); with none given the stored ones, TLS and the secret file
         * and the ACL included, are used again, so those are added whenever any option is given.
         */
        List<String> serverOptions(@Nullable TlsFiles tls, @Nullable Path secretFile, @Nullable Path aclFile) {
            List<String> options = new ArrayList<>();
            if (snapshotInterval != null) {
                options.addAll(List.of("--snapshot-interval", snapshotInterval.toMillis() + "ms"));
            }
            if (readLease != null) {
                options.addAll(List.of("--read-lease", readLease.toMillis() + "ms"));
            }
            if (connectionsMax != null) {
                options.addAll(List.of("--connections-max", connectionsMax.toString()));
            }
            if (connectionsPerAddressMax != null) {
                options.addAll(List.of("--connections-per-address-max", connectionsPerAddressMax.toString()));
            }
            if (insecure) {
                options.add("--insecure");
            }
            if (unsafeAllowForcedRelease) {
                options.add("--unsafe-allow-forced-release");
            }
            if (options.isEmpty() && tlsCert == null && clusterSecretFile == null && acl == null) {
                return options;
            }
            if (tls != null) {
                options.addAll(List.of(
                        "--tls-cert",
                        tls.certificate().toString(),
                        "--tls-key",
                        tls.key().toString()));
                if (tls.clientCa() != null) {
                    options.addAll(List.of("--tls-ca", tls.clientCa().toString()));
                }
            }
            if (secretFile != null) {
                options.addAll(List.of(CLUSTER_SECRET_FILE, secretFile.toString()));
            }
            if (aclFile != null) {
                options.addAll(List.of(ACL, aclFile.toString()));
            }
            return options;
        }
    }

    @Command(
            name = "stop",
            description = "Stops every node of the local cluster in --data (SIGTERM, then SIGKILL after 10 s).")
    static final class Stop implements Callable<Integer> {
        @Option(names = "--data", required = true, description = "The directory given to `cluster start`.")
        Path data;

        @Option(names = "--json", description = "One JSON object on one line: data, stopped (how many nodes).")
        boolean json;

        @Override
        public Integer call() throws IOException {
            LocalCluster cluster =
                    LocalCluster.load(data).orElseThrow(() -> new IllegalArgumentException("no cluster in " + data));
            int stopped = cluster.stopAll(Duration.ofSeconds(10));
            if (json) {
                JsonObject o = new JsonObject();
                o.addProperty("data", data.toAbsolutePath().normalize().toString());
                o.addProperty("stopped", stopped);
                System.out.println(Json.line(o));
            } else {
                System.out.println("stopped " + stopped + " node(s)");
            }
            return ExitCodes.OK;
        }
    }

    private static final String CLUSTER_SECRET_FILE = "--cluster-secret-file";
    private static final String ACL = "--acl";

    /** The TLS files in a cluster's stored server options, or null if it was started without. */
    static @Nullable TlsFiles storedTls(List<String> options) {
        return ServerCommand.tlsFiles(
                optionValue(options, "--tls-cert"),
                optionValue(options, "--tls-key"),
                optionValue(options, "--tls-ca"));
    }

    private static @Nullable Path optionValue(List<String> options, String name) {
        int i = options.indexOf(name);
        return i < 0 || i + 1 >= options.size() ? null : Path.of(options.get(i + 1));
    }

    /**
     * How this command asks its nodes for their health: as a client of the nodes' own CA, and,
     * where they ask for client certificates, presenting the node certificate (so the client CA
     * must have signed it). Without a client CA it trusts the node certificate itself.
     */
    private static @Nullable ClientTls healthCheckTls(@Nullable TlsFiles tls) {
        if (tls == null) {
            return null;
        }
        if (tls.clientCa() == null) {
            return ClientTls.trusting(tls.certificate());
        }
        return ClientTls.of(tls.clientCa(), tls.certificate(), tls.key());
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
