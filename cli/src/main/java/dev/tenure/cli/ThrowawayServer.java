package dev.tenure.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A single `tenure server` process for one `tenure bench` run when no endpoints were given: free
 * loopback ports, a fresh data directory, stopped and deleted at the end. A separate process, so
 * that its CPU and memory are its own and the bench's load does not share its JVM.
 */
final class ThrowawayServer implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path data;
    private final int port;

    private ThrowawayServer(Process process, Path data, int port) {
        this.process = process;
        this.data = data;
        this.port = port;
    }

    static ThrowawayServer start(Path parent) throws IOException, InterruptedException {
        Files.createDirectories(parent);
        Path data = Files.createTempDirectory(parent.toAbsolutePath(), "tenure-bench-node-");
        int port = freeTcpPort();
        List<String> cmd = new ArrayList<>(SelfLauncher.javaCommand(List.of("-XX:+UseSerialGC", "-Xmx512m")));
        cmd.addAll(List.of(
                "server",
                "--data",
                data.toString(),
                "--port",
                Integer.toString(port),
                "--admin-port",
                "0",
                "--cluster-port-base",
                Integer.toString(freeUdpBase())));
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(
                        data.resolve("server.log").toFile()))
                .start();
        ThrowawayServer server = new ThrowawayServer(p, data, port);
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
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = new CompletableFuture<>();
        // Reads every line, so that the server never blocks on a full pipe; the first one says it serves.
        Thread pump = new Thread(
                () -> {
                    try {
                        String l;
                        while ((l = out.readLine()) != null) {
                            line.complete(l);
                        }
                    } catch (IOException e) {
                        // the server is gone
                    }
                    line.complete(null);
                },
                "tenure-bench-server-output");
        pump.setDaemon(true);
        pump.start();
        String first;
        try {
            first = line.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
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
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
            deleteTree(data);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            System.err.println("tenure bench: could not delete " + data + ": " + e.getMessage());
        }
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A base whose five Aeron ports (base+1..+5) are free UDP ports on loopback right now. */
    private static int freeUdpBase() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(10_000) * 3;
            boolean free = true;
            for (int p = base + 1; p <= base + 5 && free; p++) {
                try (DatagramSocket s = new DatagramSocket(p, InetAddress.getLoopbackAddress())) {
                    free = true;
                } catch (IOException e) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no free UDP ports on loopback for the throwaway server");
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
