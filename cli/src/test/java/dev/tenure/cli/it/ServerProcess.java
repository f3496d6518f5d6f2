package dev.tenure.cli.it;

import dev.tenure.client.TenureClient;
import dev.tenure.process.JavaCommand;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TestPorts;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A real `tenure server` process on free loopback ports; restartable on the same data. */
final class ServerProcess implements AutoCloseable {

    final Path data;
    final int port;
    final int clusterPortBase;
    private List<String> jvmOptions = JavaCommand.SMALL_NODE_JVM;
    private List<String> wrapper = List.of();
    private int adminPort;
    private Processes.Running running;
    private List<String> options = List.of();

    ServerProcess(Path data) {
        this.data = data;
        this.port = LoopbackPorts.freeTcpPort();
        this.clusterPortBase = TestPorts.freeAeronPortBase();
    }

    /** Runs the node's JVM with {@code options} instead of the ITs' node JVM. */
    ServerProcess jvm(List<String> options) {
        this.jvmOptions = options;
        return this;
    }

    /**
     * Lowers the archive's free-space floor from its default 128 MiB, below which the node refuses
     * to start, to 32 MiB: so that a small file system (a 256 MiB tmpfs) holds a node, and fills.
     */
    ServerProcess onASmallDisk() {
        List<String> jvm = new ArrayList<>(jvmOptions);
        jvm.add("-Daeron.archive.low.storage.space.threshold=32m");
        this.jvmOptions = jvm;
        return this;
    }

    /** Runs the node under {@code command} (e.g. {@code prlimit --nofile=N:N --}). */
    ServerProcess wrappedIn(List<String> command) {
        this.wrapper = command;
        return this;
    }

    /** Serves the admin endpoint (off by default) on a free port. */
    ServerProcess withAdmin() {
        this.adminPort = LoopbackPorts.freeTcpPort();
        return this;
    }

    int adminPort() {
        return adminPort;
    }

    String endpoint() {
        return "127.0.0.1:" + port;
    }

    /** A client of this node that waits up to 20 s (scaled) for each answer, not the default 5 s: the machine may be loaded. */
    TenureClient patientClient() {
        return TenureClient.builder()
                .endpoints(endpoint())
                .requestTimeout(Processes.scaled(Duration.ofSeconds(20)))
                .build();
    }

    /** Options added to `tenure server` on every start (e.g. --tls-cert FILE). */
    ServerProcess withOptions(String... options) {
        this.options = List.of(options);
        return this;
    }

    ServerProcess start() throws IOException, InterruptedException {
        return start(Map.of());
    }

    /** Starts the node with extra environment variables (e.g. a preloaded fake clock). */
    ServerProcess start(Map<String, String> env) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(
                "server",
                "--data",
                data.toString(),
                "--port",
                Integer.toString(port),
                "--admin-port",
                Integer.toString(adminPort),
                "--cluster-port-base",
                Integer.toString(clusterPortBase)));
        args.addAll(options);
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(Processes.tenure(jvmOptions, args));
        running = new Processes.Running(command, env);
        String line = running.nextLine(Duration.ofSeconds(60));
        if (!line.contains("health ok")) {
            throw new AssertionError("server did not become healthy: " + line + "\n" + running.output());
        }
        return this;
    }

    void kill9() throws InterruptedException {
        running.kill9();
    }

    void signal(String name) throws IOException, InterruptedException {
        running.signal(name);
    }

    long pid() {
        return running.pid();
    }

    /** Every stderr line the node wrote so far, as written (the log's format included). */
    List<String> stderr() {
        synchronized (running.stderr) {
            return List.copyOf(running.stderr);
        }
    }

    /**
     * Every line the node printed so far, each prefixed {@code out: } or {@code err: }; a log line
     * in the text format without its time, level and logger (see {@link Processes#logMessage}).
     */
    List<String> lines() {
        synchronized (running.all) {
            return List.copyOf(running.all);
        }
    }

    /** Waits for the node to exit on its own; its exit status. */
    int awaitExit(Duration timeout) throws InterruptedException {
        return running.waitFor(timeout);
    }

    boolean alive() {
        return running.process.isAlive();
    }

    @Override
    public void close() {
        if (running != null) {
            running.close();
        }
    }
}
