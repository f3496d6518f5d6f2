package dev.tenure.lab.process;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import dev.tenure.client.ServerStatus;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.client.spi.ClientTls;
import dev.tenure.client.spi.Transport;
import dev.tenure.process.Dirs;
import dev.tenure.process.JavaCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * A local cluster's layout and processes, remembered in {@code DIR/cluster.json}: node i keeps
 * its id, ports and data directory ({@code DIR/node-i}) across restarts, so a node started again
 * is the same member with the same log.
 */
public final class LocalCluster {

    private static final Gson GSON = new GsonBuilder().setPrettyPrinting().create();
    private static final String FILE = "cluster.json";
    private static final String JOIN = "--join";

    private final Path dir;
    private final State state;

    /** What cluster.json holds. */
    static final class State {
        // Set by plan() or read from cluster.json, which plan() wrote.
        @SuppressWarnings("NullAway.Init")
        String members;

        List<Node> nodes = new ArrayList<>();
        /** Server options of the last start that gave any; restarted nodes get them again. */
        List<String> serverOptions = new ArrayList<>();
    }

    public static final class Node {
        int id;
        // Set by plan() or read from cluster.json, which plan() wrote.
        @SuppressWarnings("NullAway.Init")
        String host;

        int port;
        /** The network namespace the node runs in ({@link LabNetwork}), or null for the caller's. */
        @Nullable
        String netns;

        long pid;

        public int id() {
            return id;
        }

        public long pid() {
            return pid;
        }

        public String endpoint() {
            return host + ":" + port;
        }
    }

    private LocalCluster(Path dir, State state) {
        this.dir = dir;
        this.state = state;
    }

    public static Optional<LocalCluster> load(Path dir) {
        Path file = dir.resolve(FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new LocalCluster(dir, GSON.fromJson(Files.readString(file, StandardCharsets.UTF_8), State.class)));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    public static LocalCluster plan(Path dir, int nodes, int basePort, String host) {
        if (nodes != 3 && nodes != 5) {
            throw new IllegalArgumentException("--nodes must be 3 or 5, was " + nodes);
        }
        return plan(dir, basePort, Collections.nCopies(nodes, new Place(host, null)));
    }

    /** Where a node runs: its address, and its network namespace (null for the caller's). */
    public record Place(String host, @Nullable String netns) {}

    /** Node i at {@code places.get(i)}, on ports from {@code basePort + 20·i}. */
    public static LocalCluster plan(Path dir, int basePort, List<Place> places) {
        State state = new State();
        for (int i = 0; i < places.size(); i++) {
            Node n = new Node();
            n.id = i;
            n.host = places.get(i).host();
            n.netns = places.get(i).netns();
            n.port = basePort + 20 * i;
            state.nodes.add(n);
        }
        state.members = state.nodes.stream().map(n -> n.id + "=" + n.endpoint()).collect(Collectors.joining(","));
        return new LocalCluster(dir, state);
    }

    public List<Node> nodes() {
        return state.nodes;
    }

    /** The server options stored from the last start that gave any; restarted nodes get them. */
    public List<String> serverOptions() {
        return state.serverOptions == null ? List.of() : List.copyOf(state.serverOptions);
    }

    public String endpoints() {
        return state.nodes.stream().map(Node::endpoint).collect(Collectors.joining(","));
    }

    public Path logFile(Node n) {
        return dir.resolve("node-" + n.id + ".log");
    }

    public void save() throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(FILE), GSON.toJson(state), StandardCharsets.UTF_8);
    }

    /**
     * Starts every node whose recorded process is not running. Options given replace the stored
     * ones; with none, a restarted node gets the options it was first started with.
     */
    public void startMissing(TenureCommand tenure, List<String> serverOptions) throws IOException {
        Files.createDirectories(dir);
        if (!serverOptions.isEmpty() || state.serverOptions == null) {
            state.serverOptions = new ArrayList<>(serverOptions);
        }
        for (Node n : state.nodes) {
            if (!running(n)) {
                List<String> options = new ArrayList<>(state.serverOptions);
                if (n.pid > 0 && !Files.exists(nodeData(n).resolve("cluster/recording.log"))) {
                    // Started before and now empty (wiped, or a new disk): its peers may have
                    // deleted the old log, so it must copy from them, however long they take.
                    options.add(JOIN);
                }
                n.pid = start(tenure, n, options);
            }
        }
    }

    public boolean running(Node n) {
        return n.pid > 0
                && ProcessHandle.of(n.pid)
                        .filter(ProcessHandle::isAlive)
                        .flatMap(p -> p.info().commandLine())
                        // A node of an earlier release was started with --data on its command line.
                        .filter(cmd -> cmd.contains(configFile(n).toString()) || cmd.contains("--data " + nodeData(n)))
                        .isPresent();
    }

    /** The node's {@code tenure server --config} file, rewritten at each start of the node. */
    public Path configFile(Node n) {
        return dir.toAbsolutePath().normalize().resolve("node-" + n.id + ".yaml");
    }

    private Path nodeData(Node n) {
        return dir.toAbsolutePath().normalize().resolve("node-" + n.id);
    }

    private long start(TenureCommand tenure, Node n, List<String> serverOptions) throws IOException {
        List<String> cmd = new ArrayList<>();
        if (n.netns != null) {
            // ip netns exec execs what follows in the namespace: the pid stays the node's.
            cmd.addAll(List.of("ip", "netns", "exec", n.netns));
        }
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            // Its own session: the node outlives this command and the terminal's Ctrl-C.
            cmd.add("/usr/bin/setsid");
        }
        cmd.addAll(tenure.command(JavaCommand.NODE_JVM));
        List<String> fileOptions = new ArrayList<>(List.of(
                "--node-id",
                Integer.toString(n.id),
                "--members",
                state.members,
                "--data",
                nodeData(n).toString()));
        for (String option : serverOptions) {
            if (!JOIN.equals(option)) {
                fileOptions.add(option);
            }
        }
        if (n.netns != null && !serverOptions.contains("--insecure")) {
            // A node in the lab's namespaces serves on a private veth link (LabNetwork) that only the
            // lab's own processes reach: an open node there is the lab's choice, said as a node
            // beyond loopback wants it said (without TLS or a cluster secret it refuses to start).
            fileOptions.add("--insecure");
        }
        NodeConfigFile.write(configFile(n), fileOptions);
        cmd.addAll(List.of("server", "--config", configFile(n).toString()));
        if (serverOptions.contains(JOIN)) {
            cmd.add(JOIN); // this start's only: a later restart with its log must not wait for a copy
        }
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile(n).toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        // setsid execs java in place, so this pid is the node's.
        return p.pid();
    }

    /**
     * Polls until every node reports a healthy cluster with a leader: each one has just
     * committed a command through the log, so a restarted node has caught up and serves.
     */
    public boolean awaitLeader(Duration timeout) throws InterruptedException {
        return awaitLeader(timeout, null);
    }

    /** As {@link #awaitLeader(Duration)}, asking the nodes over {@code tls} (null: plaintext). */
    public boolean awaitLeader(Duration timeout, @Nullable ClientTls tls) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (state.nodes.stream().allMatch(n -> healthy(n, tls))) {
                return true;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        return false;
    }

    private static boolean healthy(Node n, @Nullable ClientTls tls) {
        return status(n, tls)
                .filter(s -> "ok".equals(s.health()) && s.leaderId() >= 0)
                .isPresent();
    }

    /** Node {@code n}'s own status, or empty if it did not answer within 2 s. */
    public static Optional<ServerStatus> status(Node n) {
        return status(n, null);
    }

    /**
     * As {@link #status(Node)}, over {@code tls} (null: plaintext). A refused handshake
     * ({@link TenureException.Code#DENIED}) is not a node still starting: it is thrown, so that a caller
     * waiting for health says why at once instead of timing out.
     */
    public static Optional<ServerStatus> status(Node n, @Nullable ClientTls tls) {
        TenureClient.Builder b = TenureClient.builder().endpoints(n.endpoint()).requestTimeout(Duration.ofSeconds(2));
        if (tls != null) {
            Transport.tls(b, tls);
        }
        try (TenureClient client = b.build()) {
            return Optional.of(client.serverStatus());
        } catch (TenureException e) {
            if (e.code() == TenureException.Code.DENIED) {
                throw e;
            }
            return Optional.empty();
        }
    }

    public int stopAll(Duration grace) {
        int stopped = 0;
        List<ProcessHandle> handles = new ArrayList<>();
        for (Node n : state.nodes) {
            if (running(n)) {
                ProcessHandle.of(n.pid).ifPresent(p -> {
                    p.destroy();
                    handles.add(p);
                });
            }
        }
        long deadline = System.nanoTime() + grace.toNanos();
        for (ProcessHandle p : handles) {
            long left = Math.max(0, deadline - System.nanoTime());
            try {
                p.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
            stopped++;
        }
        // A node killed here (or earlier, and never restarted) left its Aeron directory behind.
        for (Node n : state.nodes) {
            try {
                Dirs.deleteAeronDirs(nodeData(n));
            } catch (IOException e) {
                // Left for the next node's start to sweep.
            }
        }
        return stopped;
    }
}
