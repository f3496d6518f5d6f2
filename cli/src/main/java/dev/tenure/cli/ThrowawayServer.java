package dev.tenure.cli;

import dev.tenure.process.ChildProcess;
import dev.tenure.process.Dirs;
import dev.tenure.process.JavaCommand;
import dev.tenure.process.LoopbackPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A single `tenure server` process for one `tenure bench` run when no endpoints were given: free
 * loopback ports, a fresh data directory, stopped and deleted at the end. A separate process, so
 * that its CPU and memory are its own and the bench's load does not share its JVM.
 */
final class ThrowawayServer implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    /** A node's Aeron endpoints take the five UDP ports above its cluster port base. */
    private static final int AERON_PORTS = 5;

    private final ChildProcess process;
    private final CompletableFuture<String> firstLine;
    private final Path data;
    private final int port;

    private ThrowawayServer(ChildProcess process, CompletableFuture<String> firstLine, Path data, int port) {
        this.process = process;
        this.firstLine = firstLine;
        this.data = data;
        this.port = port;
    }

    static ThrowawayServer start(Path parent) throws IOException, InterruptedException {
        Files.createDirectories(parent);
        Path data = Files.createTempDirectory(parent.toAbsolutePath(), "tenure-bench-node-");
        int port = LoopbackPorts.freeTcpPort();
        List<String> cmd = new ArrayList<>(SelfLauncher.javaCommand(JavaCommand.NODE_JVM));
        cmd.addAll(List.of(
                "server",
                "--data",
                data.toString(),
                "--port",
                Integer.toString(port),
                "--admin-port",
                "0",
                "--cluster-port-base",
                Integer.toString(LoopbackPorts.freeUdpBlock(AERON_PORTS))));
        ProcessBuilder builder = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        data.resolve("server.log").toFile()));
        // Every line is read, so that the server never blocks on a full pipe; the first one says it serves.
        CompletableFuture<String> firstLine = new CompletableFuture<>();
        ChildProcess p = ChildProcess.start("tenure-bench-server-output", builder, firstLine::complete, line -> {});
        CompletableFuture<?> unused = p.stdoutEnded().thenRun(() -> firstLine.complete(null));
        ThrowawayServer server = new ThrowawayServer(p, firstLine, data, port);
        try {
            server.awaitServing();
        } catch (IOException | RuntimeException | InterruptedException e) {
            server.close();
            throw e;
        }
        return server;
    }

    String endpoint() {
        return "127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    Path data() {
        return data;
    }

    private void awaitServing() throws IOException, InterruptedException {
        String first;
        try {
            first = firstLine.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            first = null;
        }
        if (first == null || !first.contains("health ok")) {
            throw new IOException(
                    "the throwaway server did not start: " + first + "; see " + data.resolve("server.log"));
        }
    }

    @Override
    public void close() {
        Process p = process.process();
        p.destroy();
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
            }
            Dirs.deleteTree(data);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            System.err.println("tenure bench: could not delete " + data + ": " + e.getMessage());
        } finally {
            process.close(); // its stdin, and a kill if an interrupt cut the wait short
        }
    }
}
