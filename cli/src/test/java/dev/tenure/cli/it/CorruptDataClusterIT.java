package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.TenureClient;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TestPorts;
import dev.tenure.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real members; the leader's log is damaged on disk while it runs, in entries a member that
 * was down has not seen. When that member catches up, the leader's archive replays the damaged
 * frame to it, refuses it by its checksum, and the leader ends with 12 and the line that names its
 * archive and the position; the other two elect a leader and serve every acknowledged value, the
 * caught-up member included. The damaged member refuses to start on its data (12, the file and the
 * byte), and once its data directory is wiped and it is started with --join, it copies its peers
 * and serves again: the rebuild docs/cluster.md describes.
 */
class CorruptDataClusterIT {

    @TempDir
    Path data;

    private final List<Integer> ports = new ArrayList<>();
    private final List<Integer> bases = new ArrayList<>();
    private final Processes.Running[] nodes = new Processes.Running[3];

    @Test
    void aLeaderThatFindsItsLogDamagedWhileAPeerCatchesUpEndsWithTwelveAndIsRebuiltFromItsPeers() throws Exception {
        for (int i = 0; i < 3; i++) {
            ports.add(LoopbackPorts.freeTcpPort());
            bases.add(TestPorts.freeAeronPortBase());
        }
        try {
            for (int i = 0; i < 3; i++) {
                start(i);
            }
            int leader;
            try (TenureClient client = client(endpoints())) {
                leader = Await.atMost(Duration.ofSeconds(60))
                        .every(Duration.ofMillis(200))
                        .until("a leader", () -> leaderId(client), id -> id >= 0);
                client.kv().put("before", "before-value".getBytes(UTF_8));
                int lagging = (leader + 1) % 3;
                nodes[lagging].kill9();
                for (int i = 0; i < 3; i++) {
                    client.kv().put("lagged-" + i, ("lagged-value-" + i + "-acknowledged").getBytes(UTF_8));
                }
                Path log = dir(leader).resolve("archive/0-0.rec");
                long frame = DataFiles.frameStart(log, DataFiles.onlyOffsetOf(log, "lagged-value-1-acknowledged"));
                DataFiles.flip(log, frame + DataFiles.HEADER + 10, 0x01);

                start(lagging);
                assertThat(nodes[leader].waitFor(Duration.ofSeconds(60)))
                        .as(nodes[leader].output())
                        .isEqualTo(12);
                assertThat(nodes[leader].output())
                        .contains("err: tenure: fatal: corrupt data file (exit 12): "
                                + dir(leader).resolve("archive")
                                + ": a replay failed: ERROR - CRC checksum mismatch at position=" + frame + " ");
                try (TenureClient atLagging = client("127.0.0.1:" + ports.get(lagging))) {
                    awaitEveryValue(atLagging, "the member that caught up");
                }

                Processes.Running restarted = launch(leader, false);
                assertThat(restarted.waitFor(Duration.ofSeconds(30)))
                        .as(restarted.output())
                        .isEqualTo(12);
                assertThat(restarted.output())
                        .startsWith("err: tenure: corrupt data file: " + log + " at byte " + frame + " (log position "
                                + frame + "; the file ends at byte " + Files.size(log) + "): checksum mismatch")
                        .endsWith("; this member can be rebuilt from its peers: see"
                                + " docs/cluster.md#rebuilding-a-member-from-its-peers")
                        .doesNotContain("\n");

                Dirs.deleteTree(dir(leader));
                nodes[leader] = launch(leader, true);
                assertThat(nodes[leader].nextLine(Duration.ofMinutes(2))).contains("serving");
                try (TenureClient rebuilt = client("127.0.0.1:" + ports.get(leader))) {
                    awaitEveryValue(rebuilt, "the rebuilt member");
                }
                assertThat(nodes[leader].output()).contains("copied the cluster's latest snapshot");
            }
        } finally {
            for (Processes.Running node : nodes) {
                if (node != null) {
                    node.close();
                }
            }
        }
    }

    private static void awaitEveryValue(TenureClient client, String through) throws Exception {
        for (int i = 0; i < 3; i++) {
            String key = "lagged-" + i;
            Optional<String> expected = Optional.of("lagged-value-" + i + "-acknowledged");
            Await.atMost(Duration.ofSeconds(60))
                    .every(Duration.ofMillis(200))
                    .until(key + " through " + through, () -> value(client, key), expected::equals);
        }
        assertThat(value(client, "before")).contains("before-value");
    }

    private static int leaderId(TenureClient client) {
        try {
            return client.serverStatus().leaderId();
        } catch (RuntimeException noneYet) {
            return -1;
        }
    }

    private void start(int node) throws Exception {
        nodes[node] = launch(node, false);
        String line = nodes[node].nextLine(Duration.ofSeconds(60));
        assertThat(line).as(nodes[node].output()).contains("serving");
    }

    private Processes.Running launch(int node, boolean join) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "server",
                "--node-id",
                Integer.toString(node),
                "--members",
                members(),
                "--data",
                dir(node).toString(),
                "--admin-port",
                "0"));
        if (join) {
            args.add("--join");
        }
        return TenureCli.start(args);
    }

    private Path dir(int node) {
        return data.resolve("node-" + node);
    }

    private String members() {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            members.add(i + "=127.0.0.1:" + ports.get(i) + "@" + bases.get(i));
        }
        return String.join(",", members);
    }

    private String endpoints() {
        return ports.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    private static TenureClient client(String endpoints) {
        return TenureClient.builder().endpoints(endpoints).build();
    }

    private static Optional<String> value(TenureClient client, String key) {
        try {
            return client.kv().get(key).map(e -> new String(e.value(), UTF_8));
        } catch (RuntimeException unavailable) {
            return Optional.empty();
        }
    }
}
