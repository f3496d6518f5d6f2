package dev.tenure.cli;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.server.ServerConfig;
import dev.tenure.server.TenureServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
        name = "server",
        description = "Runs one Tenure node (a one-member cluster with a durable, fsynced log) in the foreground.")
final class ServerCommand implements java.util.concurrent.Callable<Integer> {

    @Option(names = "--data", description = "Data directory (default: ${DEFAULT-VALUE}).", defaultValue = "tenure-data")
    Path data;

    @Option(names = "--port", description = "gRPC port for clients (default: ${DEFAULT-VALUE}).", defaultValue = "7420")
    int port;

    @Option(
            names = "--admin-port",
            description = "HTTP admin port, 0 to disable (default: ${DEFAULT-VALUE}).",
            defaultValue = "7421")
    int adminPort;

    @Option(
            names = "--cluster-port-base",
            description = "Base of the five UDP ports Aeron uses between members (default: port + 10).")
    Integer clusterPortBase;

    @Option(
            names = "--ready-timeout",
            description = "How long to wait for the node to serve (default: ${DEFAULT-VALUE}).",
            defaultValue = "30s",
            converter = DurationConverter.class)
    Duration readyTimeout;

    @Override
    public Integer call() throws Exception {
        ServerConfig config =
                ServerConfig.singleNode(data, port, adminPort, clusterPortBase == null ? port + 10 : clusterPortBase);
        CountDownLatch stop = new CountDownLatch(1);
        TenureServer server = TenureServer.start(config, System.err);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            server.close();
                            stop.countDown();
                        },
                        "tenure-shutdown"));
        ServerStatusResponse status = awaitReady(server);
        System.out.printf(
                "tenure: node %d serving on %s (admin %s), data %s, health %s%n",
                config.nodeId(),
                config.self().endpoint(),
                adminPort == 0 ? "off" : config.bindHost() + ":" + server.adminPort(),
                data.toAbsolutePath().normalize(),
                status.getHealth());
        System.out.flush();
        stop.await();
        return 0;
    }

    private ServerStatusResponse awaitReady(TenureServer server) throws InterruptedException {
        long deadline = System.nanoTime() + readyTimeout.toNanos();
        ServerStatusResponse status = server.status();
        while (!"ok".equals(status.getHealth()) && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(50);
            status = server.status();
        }
        return status;
    }
}
