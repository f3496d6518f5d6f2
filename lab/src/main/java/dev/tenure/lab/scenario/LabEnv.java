package dev.tenure.lab.scenario;

import dev.tenure.client.ServerStatus;
import dev.tenure.lab.process.LabNetwork;
import dev.tenure.lab.process.LocalCluster;
import dev.tenure.lab.process.Proc;
import dev.tenure.lab.process.TenureCommand;
import dev.tenure.process.Signals;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * What every scenario of one lab invocation shares: the output directory, the seed and the time
 * scale, how to start `tenure` and worker processes, and one local 3-node Tenure cluster (started
 * on first use; each run uses locks and keys of its own).
 */
public final class LabEnv implements AutoCloseable {
    public static final int SCALE_MIN = 1;
    /** Above this, the shortest TTL (8 s / scale) falls under one second: too tight for 2 cores. */
    public static final int SCALE_MAX = 8;

    private final Path dir;
    private final long seed;
    private final int scale;
    private final Random random;
    private final TenureCommand tenure;
    private final String classpath;
    private final int basePort;
    private final PrintStream progress;
    private final Optional<LabNetwork> network;
    private final List<Proc> children = new ArrayList<>(); // guarded by itself
    private @Nullable LocalCluster cluster; // started on first use
    private boolean closed; // guarded by children

    public LabEnv(
            Path dir,
            long seed,
            int scale,
            TenureCommand tenure,
            String classpath,
            int basePort,
            PrintStream progress,
            Optional<LabNetwork> network) {
        if (scale < SCALE_MIN || scale > SCALE_MAX) {
            throw new IllegalArgumentException("--scale must be in [" + SCALE_MIN + ", " + SCALE_MAX
                    + "] (times are divided by it), was " + scale);
        }
        this.dir = dir;
        this.seed = seed;
        this.scale = scale;
        this.random = new Random(seed);
        this.tenure = tenure;
        this.classpath = classpath;
        this.basePort = basePort;
        this.progress = progress;
        this.network = network;
    }

    public Path dir() {
        return dir;
    }

    public long seed() {
        return seed;
    }

    public int scale() {
        return scale;
    }

    /** Seeded: which node dies, where a fault lands; the same seed makes the same choices. */
    public Random random() {
        return random;
    }

    String classpath() {
        return classpath;
    }

    /** A scenario's time at scale 1, divided by the scale. */
    public long ms(long baseMs) {
        return Math.max(1, baseMs / scale);
    }

    public Duration scaled(Duration base) {
        return Duration.ofMillis(ms(base.toMillis()));
    }

    /**
     * The namespaces the cluster runs in, one per node, when the lab was started inside a
     * {@link LabNetwork}'s hub: faults between nodes are then kernel rules. Empty on loopback.
     */
    public Optional<LabNetwork> network() {
        return network;
    }

    public void progress(String line) {
        progress.println("lab: " + line);
        progress.flush();
    }

    /** The cluster's client endpoints, starting it on first use. */
    public List<String> nodeEndpoints() throws IOException, InterruptedException {
        return cluster().nodes().stream().map(LocalCluster.Node::endpoint).toList();
    }

    /** Every node's log file, in node order. */
    public List<Path> nodeLogs() throws IOException, InterruptedException {
        LocalCluster c = cluster();
        return c.nodes().stream().map(c::logFile).toList();
    }

    private LocalCluster cluster() throws IOException, InterruptedException {
        if (cluster == null) {
            progress("starting a 3-node Tenure cluster in " + dir.resolve("cluster") + " from port " + basePort
                    + network.map(n -> ", in " + n.describe()).orElse(", on loopback"));
            LocalCluster c = network.map(n -> LocalCluster.plan(
                            dir.resolve("cluster"),
                            basePort,
                            IntStream.range(0, 3)
                                    .mapToObj(i -> new LocalCluster.Place(LabNetwork.address(i), n.node(i).name))
                                    .toList()))
                    .orElseGet(() -> LocalCluster.plan(dir.resolve("cluster"), 3, basePort, "127.0.0.1"));
            c.startMissing(tenure, List.of());
            c.save();
            cluster = c;
            awaitLeader(c);
            return c;
        }
        return cluster;
    }

    private void awaitLeader(LocalCluster c) throws InterruptedException {
        if (!c.awaitLeader(Duration.ofMinutes(2))) {
            throw new LabException("the Tenure cluster had no leader with every node serving within 120 s; see "
                    + dir.resolve("cluster/node-*.log"));
        }
    }

    /**
     * The node that leads now, as the first node to answer says, or empty if none answered with a
     * leader (an election in progress, or no quorum).
     */
    public OptionalInt leader() throws IOException, InterruptedException {
        // A node that is down, paused or cut off does not answer: ask the next one.
        return cluster().nodes().stream()
                .flatMap(n -> LocalCluster.status(n).stream())
                .mapToInt(ServerStatus::leaderId)
                .filter(id -> id >= 0)
                .findFirst();
    }

    /** SIGKILL to node {@code i}; returns once it is gone. */
    public void killNode(int i) throws IOException, InterruptedException {
        long pid = cluster().nodes().get(i).pid();
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroyForcibly();
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new LabException("node " + i + " (pid " + pid + ") did not die within 30 s", e);
            }
        });
    }

    /**
     * SIGTERM to node {@code i}, as an operator's restart stops a member; returns once it exited,
     * killing it (SIGKILL) if it is still running after {@code grace}.
     */
    public void stopNode(int i, Duration grace) throws IOException, InterruptedException {
        long pid = cluster().nodes().get(i).pid();
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroy();
            try {
                p.onExit().get(grace.toMillis(), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                progress("node " + i + " (pid " + pid + ") did not stop within " + grace.toSeconds()
                        + " s of SIGTERM: killed");
                p.destroyForcibly();
                p.onExit().join();
            }
        });
    }

    /** Sends {@code signal} (e.g. STOP, CONT) to node {@code i}'s process; STOP returns once it stopped. */
    public void signalNode(int i, String signal) throws IOException, InterruptedException {
        long pid = cluster().nodes().get(i).pid();
        try {
            Signals.send(pid, signal);
        } catch (IOException e) {
            throw new LabException("node " + i + ": " + e.getMessage(), e);
        }
    }

    /** Restarts every node that is not running (same identity and data) and waits for a leader. */
    public void restartNodes() throws IOException, InterruptedException {
        LocalCluster c;
        // Under the lock close() takes first: a node restarted as the lab closes is stopped with it.
        synchronized (children) {
            if (closed) {
                throw new LabException("the lab is closing: no node restarted");
            }
            c = cluster();
            c.startMissing(tenure, List.of());
            c.save();
        }
        awaitLeader(c);
    }

    /**
     * Every child process is also killed when the lab is closed (or interrupted: see close); one
     * started while or after the lab closes is killed at once, so no late start outlives it.
     */
    void track(Proc p) {
        synchronized (children) {
            if (!closed) {
                children.add(p);
                return;
            }
        }
        p.close();
        throw new LabException("the lab is closing: " + p.name() + " was stopped at its start");
    }

    /**
     * Kills every worker and naive server still running and stops the cluster. Idempotent, and
     * safe from a shutdown hook: an interrupted lab leaves no process behind.
     */
    @Override
    public void close() {
        List<Proc> all;
        synchronized (children) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(children);
        }
        all.forEach(Proc::close);
        if (cluster != null) {
            cluster.stopAll(Duration.ofSeconds(10));
        }
    }
}
