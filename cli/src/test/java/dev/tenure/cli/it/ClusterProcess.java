package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.lab.process.Ports;
import dev.tenure.process.Dirs;
import dev.tenure.process.Signals;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A local 3-node cluster run through `tenure cluster start/stop`, as a user runs it. */
final class ClusterProcess implements AutoCloseable {

    final Path data;
    final int basePort;
    final List<String> startOptions = new ArrayList<>();
    String endpoints;
    final List<Long> pids = new ArrayList<>();
    final List<String> nodeEndpoints = new ArrayList<>();

    ClusterProcess(Path data) {
        this.data = data;
        this.basePort = Ports.freeClusterBaseAtRandom(3);
    }

    /** Starts (or restarts the missing) nodes and waits for a leader with every node serving. */
    ClusterProcess start() throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "cluster",
                "start",
                "--nodes",
                "3",
                "--data",
                data.toString(),
                "--base-port",
                Integer.toString(basePort),
                // A whole-cluster restart on a loaded 2-core CI machine once took over the default 60 s.
                "--timeout",
                "100s"));
        args.addAll(startOptions);
        args.add("--json");
        var start = TenureCli.start(args);
        int code = start.waitFor(Duration.ofMinutes(2));
        // The node logs are read only if the start failed.
        assertThat(code)
                .as(() -> "cluster start: " + start.output() + nodeLogTails())
                .isZero();
        JsonObject out =
                JsonParser.parseString(start.nextLine(Duration.ofSeconds(1))).getAsJsonObject();
        endpoints = out.get("endpoints").getAsString();
        pids.clear();
        nodeEndpoints.clear();
        JsonArray nodes = out.getAsJsonArray("nodes");
        for (int i = 0; i < nodes.size(); i++) {
            pids.add(nodes.get(i).getAsJsonObject().get("pid").getAsLong());
            nodeEndpoints.add(nodes.get(i).getAsJsonObject().get("endpoint").getAsString());
        }
        return this;
    }

    /** The last lines of every node's log, so a failed start in CI says why. */
    private String nodeLogTails() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            Path log = data.resolve("node-" + i + ".log");
            if (Files.exists(log)) {
                List<String> lines;
                try {
                    lines = Files.readAllLines(log);
                } catch (IOException e) {
                    out.append("\n--- ").append(log).append(": unreadable: ").append(e);
                    continue;
                }
                out.append("\n--- ").append(log).append(" (last 40 lines)\n");
                lines.subList(Math.max(0, lines.size() - 40), lines.size())
                        .forEach(l -> out.append(l).append('\n'));
            }
        }
        return out.toString();
    }

    /** One node's own status line (`tenure status --json` against that node only). */
    JsonObject statusOf(int node) throws Exception {
        var status = new TenureCli(nodeEndpoints.get(node)).run("status", "--json");
        status.waitFor(Duration.ofSeconds(60));
        String line = status.stdout.poll();
        return line == null ? new JsonObject() : JsonParser.parseString(line).getAsJsonObject();
    }

    void kill9(int node) throws InterruptedException {
        ProcessHandle p = ProcessHandle.of(pids.get(node)).orElseThrow();
        p.destroyForcibly();
        p.onExit().join();
    }

    void signal(int node, String name) throws IOException, InterruptedException {
        Signals.send(pids.get(node), name);
    }

    /** The leader's member id, as the given node reports it (-1 if none). */
    int leaderSeenBy(int node) throws Exception {
        var status = new TenureCli(nodeEndpoints.get(node)).run("status", "--json");
        status.waitFor(Duration.ofSeconds(30));
        String line = status.stdout.poll();
        if (line == null) {
            return -1;
        }
        return JsonParser.parseString(line).getAsJsonObject().get("leader_id").getAsInt();
    }

    @Override
    public void close() {
        try {
            TenureCli.start(List.of("cluster", "stop", "--data", data.toString()))
                    .waitFor(Duration.ofSeconds(60));
        } catch (Exception e) {
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        try {
            // A member killed with -9 left its Aeron directory in /dev/shm; stopped ones took theirs.
            Dirs.deleteAeronDirs(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
