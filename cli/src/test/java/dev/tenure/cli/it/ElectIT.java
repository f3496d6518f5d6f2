package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Elections on a real node through the CLI: the elected line, FIFO candidates, hand-over on kill -9
 * (the session-end path, about the disconnect grace) and at once on SIGTERM (a resignation), the
 * list in order, the leader's token fencing KV writes, and `elect -- CMD` whose process tree is gone
 * before the next leader is elected.
 */
class ElectIT extends OnOneNode {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @BeforeAll
    static void start() throws Exception {
        serve(new ServerProcess(data));
    }

    @Test
    void candidatesQueueFifoAndTheLeaderHandsOverOnKillAndOnTerm() throws Exception {
        try (var a = tenure("elect", "e1", "--value", "node-a", "--ttl", "30s", "--json")) {
            JsonObject elected = json(a.nextLine(PATIENCE));
            assertThat(elected.get("election").getAsString()).isEqualTo("e1");
            assertThat(elected.get("value").getAsString()).isEqualTo("node-a");
            long ta = elected.get("token").getAsLong();
            try (var b = tenure("elect", "e1", "--value", "node-b", "--ttl", "30s", "--json")) {
                cli.awaitQueued("e1", b);
                try (var c = tenure("elect", "e1", "--value", "node-c", "--ttl", "30s", "--json")) {
                    cli.awaitQueued("e1", c);
                    JsonObject list = list("e1");
                    assertThat(list.getAsJsonObject("leader").get("value").getAsString())
                            .isEqualTo("node-a");
                    assertThat(list.getAsJsonObject("leader").get("token").getAsLong())
                            .isEqualTo(ta);
                    JsonArray candidates = list.getAsJsonArray("candidates");
                    assertThat(candidates).hasSize(2);
                    assertThat(candidates.get(0).getAsJsonObject().get("value").getAsString())
                            .isEqualTo("node-b");
                    assertThat(candidates.get(1).getAsJsonObject().get("value").getAsString())
                            .isEqualTo("node-c");
                    assertThat(c.stdout.poll()).as("the second candidate waits").isNull();

                    long killedAt = System.nanoTime();
                    a.kill9();
                    JsonObject second = json(b.nextLine(PATIENCE));
                    long killMs = (System.nanoTime() - killedAt) / 1_000_000;
                    System.out.println("ElectIT: kill -9 of the leader handed over in " + killMs + " ms");
                    long tb = second.get("token").getAsLong();
                    assertThat(second.get("value").getAsString()).isEqualTo("node-b");
                    assertThat(tb).isGreaterThan(ta);
                    assertThat(killMs)
                            .as("through the session end, not the 30 s TTL")
                            .isLessThan(10_000);
                    assertThat(c.stdout.poll())
                            .as("FIFO: the first candidate leads, not the second")
                            .isNull();

                    var stale = tenure("kv", "put", "e1-key", "v", "--lock", "e1", "--token", Long.toString(ta));
                    assertThat(stale.waitFor(PATIENCE)).as(stale.output()).isEqualTo(3);
                    var fresh = tenure("kv", "put", "e1-key", "v", "--lock", "e1", "--token", Long.toString(tb));
                    assertThat(fresh.waitFor(PATIENCE)).as(fresh.output()).isEqualTo(0);

                    long termAt = System.nanoTime();
                    b.signal("TERM");
                    JsonObject third = json(c.nextLine(PATIENCE));
                    long termMs = (System.nanoTime() - termAt) / 1_000_000;
                    System.out.println("ElectIT: SIGTERM of the leader handed over in " + termMs + " ms");
                    assertThat(b.waitFor(PATIENCE)).isEqualTo(0);
                    assertThat(third.get("token").getAsLong()).isGreaterThan(tb);
                    assertThat(third.get("value").getAsString()).isEqualTo("node-c");
                    assertThat(list("e1").getAsJsonArray("candidates")).isEmpty();
                    c.signal("TERM");
                    assertThat(c.waitFor(PATIENCE)).isEqualTo(0);
                }
            }
        }
    }

    /**
     * The leader's CMD is stopped by its own horizon while the node cannot answer (SIGSTOP), and
     * its tree records when it ended; the next leader, elected once the node runs again, records
     * when its CMD started: after.
     */
    @Test
    void theLeadersTreeIsGoneBeforeTheNextLeaderIsElected() throws Exception {
        Path dir = Files.createTempDirectory(data, "elect");
        Path aEnd = dir.resolve("a-end");
        Path bStart = dir.resolve("b-start");
        String treeA = "trap 'date +%s%N > " + aEnd + "; exit 0' TERM; echo leading; sleep 120 & wait";
        try (var a = tenure("elect", "e2", "--value", "a", "--ttl", "4s", "--json", "--", "sh", "-c", treeA)) {
            assertThat(json(a.nextLine(PATIENCE)).get("value").getAsString()).isEqualTo("a");
            assertThat(a.nextLine(PATIENCE)).isEqualTo("leading");
            String treeB = "date +%s%N > " + bStart + "; echo leading; sleep 120";
            try (var b = tenure("elect", "e2", "--value", "b", "--ttl", "60s", "--json", "--", "sh", "-c", treeB)) {
                cli.awaitQueued("e2", b);
                server.signal("STOP");
                try {
                    assertThat(a.waitFor(PATIENCE)).as(a.output()).isEqualTo(4);
                } finally {
                    server.signal("CONT");
                }
                assertThat(json(b.nextLine(PATIENCE)).get("value").getAsString())
                        .isEqualTo("b");
                assertThat(b.nextLine(PATIENCE)).isEqualTo("leading");
                long ended = Long.parseLong(Files.readString(aEnd).trim());
                long started = Long.parseLong(Files.readString(bStart).trim());
                System.out.println("ElectIT: the next leader's CMD started " + (started - ended) / 1_000_000
                        + " ms after the first leader's tree ended");
                assertThat(started)
                        .as("the next leader's CMD starts after the first tree ended")
                        .isGreaterThan(ended);
                b.signal("TERM");
                assertThat(b.waitFor(PATIENCE)).isEqualTo(0);
            }
        }
    }

    @Test
    void aValueOverTheLimitIsBadInputAndChangesNothing() throws Exception {
        var big = tenure("elect", "e3", "--value", "x".repeat(1_025), "--json");
        assertThat(big.waitFor(PATIENCE)).as(big.output()).isEqualTo(2);
        assertThat(big.output()).contains("electionValueBytesMax");
        assertThat(list("e3").get("leader").isJsonNull()).isTrue();
    }

    private static JsonObject list(String name) throws Exception {
        var l = tenure("elect", name, "--list", "--json");
        assertThat(l.waitFor(PATIENCE)).as(l.output()).isEqualTo(0);
        return json(l.nextLine(PATIENCE));
    }
}
