package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Pause;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a killed node leaves in shared memory, as real processes: its Aeron directory (about 83 MB
 * in /dev/shm) stays after {@code kill -9}; the next node that starts on the machine removes it,
 * and keeps a live node's, even one stopped (SIGSTOP) long past Aeron's driver timeout, whose
 * heartbeat alone would call it dead. The ITs' own process fixtures remove a killed node's
 * directory when they close.
 */
class LeftoversIT {
    @TempDir
    Path tmp;

    @Test
    void theNextStartRemovesAKilledNodesAeronDirectoryAndKeepsALiveOnes() throws Exception {
        try (ServerProcess killed = new ServerProcess(tmp.resolve("killed")).start();
                ServerProcess stopped = new ServerProcess(tmp.resolve("stopped")).start()) {
            Path killedDir = aeronDir(killed.data);
            Path stoppedDir = aeronDir(stopped.data);
            killed.kill9();
            assertThat(killedDir).as("left behind by kill -9").isDirectory();

            stopped.signal("STOP");
            // Past Aeron's driver timeout (10 s): its heartbeat is stale, its process alive.
            Pause.of(Duration.ofSeconds(12));
            try (ServerProcess next = new ServerProcess(tmp.resolve("next")).start()) {
                assertThat(killedDir).as("removed by the next start").doesNotExist();
                assertThat(stoppedDir).as("a stopped node's directory is kept").isDirectory();
                assertThat(next.lines())
                        .anyMatch(l -> l.startsWith("err: tenure: removed ")
                                && l.contains("Aeron director")
                                && l.contains(killedDir.toString()));
                System.out.printf(
                        "LeftoversIT: %s%n",
                        next.lines().stream()
                                .filter(l -> l.contains("Aeron director"))
                                .toList());
            } finally {
                stopped.signal("CONT");
            }
        }
    }

    // The second node only has to run beside the first: the body never names it.
    @SuppressWarnings("try")
    @Test
    void aLiveNodesAeronDirectoryIsKeptAndItServesOn() throws Exception {
        try (ServerProcess live = new ServerProcess(tmp.resolve("live")).start()) {
            Path liveDir = aeronDir(live.data);
            try (ServerProcess next = new ServerProcess(tmp.resolve("next")).start()) {
                assertThat(liveDir).isDirectory();
            }
            try (TenureClient client =
                    TenureClient.builder().endpoints(live.endpoint()).build()) {
                client.kv().put("after-a-neighbour-started", "served".getBytes(UTF_8));
                assertThat(client.kv().get("after-a-neighbour-started")).isPresent();
            }
        }
    }

    @Test
    void closingTheFixtureOfAKilledNodeRemovesItsAeronDirectory() throws Exception {
        Path dir;
        try (ServerProcess node = new ServerProcess(tmp.resolve("node")).start()) {
            dir = aeronDir(node.data);
            node.kill9();
            assertThat(dir).isDirectory();
        }
        assertThat(dir).as("removed with the node's fixture").doesNotExist();
    }

    /** The Aeron directory a node names in its data directory's lock file. */
    private static Path aeronDir(Path data) throws Exception {
        List<String> lines = Files.readAllLines(data.resolve("tenure.lock"), UTF_8);
        assertThat(lines).singleElement().asString().startsWith("aeron-dir /dev/shm/tenure-");
        return Path.of(lines.get(0).substring("aeron-dir ".length()));
    }
}
