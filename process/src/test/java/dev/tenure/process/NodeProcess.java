package dev.tenure.process;

import dev.tenure.testkit.TimeScale;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A real one-node `tenure server`, started from the built {@code tenure.jar} (the system property
 * {@code tenure.jar}) on free loopback ports: for the tests of modules that must not have the
 * server on their own class path (the adapters, the relocated client), which meet a node only as
 * their users do, over the network. Shared as this module's test-jar.
 */
public final class NodeProcess implements AutoCloseable {

    private final ChildProcess process;
    private final String endpoint;

    private NodeProcess(ChildProcess process, String endpoint) {
        this.process = process;
        this.endpoint = endpoint;
    }

    /** Starts a node on {@code data} and returns once it reports itself healthy. */
    public static NodeProcess start(Path data) throws IOException, InterruptedException {
        return start(data, List.of());
    }

    /**
     * As {@link #start(Path)}, with more {@code tenure server} options (TLS certificates, say: the
     * endpoint is the same port, and the node reports its health the same way).
     */
    public static NodeProcess start(Path data, List<String> options) throws IOException, InterruptedException {
        String jar = System.getProperty("tenure.jar");
        if (jar == null) {
            throw new IllegalStateException("tenure.jar system property not set (run through mvn verify)");
        }
        int port = LoopbackPorts.freeTcpPort();
        List<String> command = new ArrayList<>(JavaCommand.of(JavaCommand.SMALL_NODE_JVM, jar, "dev.tenure.cli.Main"));
        command.addAll(List.of(
                "server",
                "--data",
                data.toString(),
                "--port",
                Integer.toString(port),
                // Its own free port: the default, the client port + 1, is not known to be free, and
                // an outgoing connection's ephemeral port took it once ("Address already in use").
                "--admin-port",
                Integer.toString(LoopbackPorts.freeTcpPort()),
                "--cluster-port-base",
                Integer.toString(LoopbackPorts.freeUdpBlock(9))));
        command.addAll(options);
        CompletableFuture<String> healthy = new CompletableFuture<>();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        ChildProcess process = ChildProcess.start(
                "node",
                command,
                line -> {
                    lines.add(line);
                    if (line.contains("health ok")) {
                        healthy.complete(line);
                    }
                },
                lines::add);
        try {
            healthy.get(TimeScale.scaled(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            process.close();
            throw new AssertionError("the node did not become healthy: " + lines, e);
        }
        return new NodeProcess(process, "127.0.0.1:" + port);
    }

    /** host:port of the node's client endpoint. */
    public String endpoint() {
        return endpoint;
    }

    /** Ends the node at once (SIGKILL), as a crash would. */
    @Override
    public void close() {
        process.close();
    }
}
