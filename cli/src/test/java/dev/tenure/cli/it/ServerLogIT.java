package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A node's log: its format, its levels per package, and the refusal of a level that is none. */
class ServerLogIT {

    private static final String STARTED = "node 0 started: gRPC port ";
    private static final String UNSAFE = "tenure: warning: --unsafe-allow-forced-release: without an ACL, anyone who"
            + " reaches this node may end anyone's lease";

    @TempDir
    Path dir;

    @Test
    void withLogFormatJsonEveryStderrLineIsAJsonObjectWithLevelLoggerAndMessage() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data"))
                .withOptions(
                        "--log-format",
                        "json",
                        "--log-level",
                        "dev.tenure=DEBUG",
                        // Netty's own debug lines come through java.util.logging: routed here too.
                        "--log-level",
                        "io.grpc.netty.shaded.io.netty=DEBUG",
                        "--unsafe-allow-forced-release")
                .start()) {
            Await.atMost(Duration.ofSeconds(10))
                    .until(
                            "the debug line of the node's start",
                            () -> server.stderr().stream().anyMatch(l -> l.contains(STARTED)));
            List<String> lines = server.stderr();
            assertThat(lines).isNotEmpty();
            List<JsonObject> events = lines.stream()
                    .map(JsonParser::parseString)
                    .map(JsonElement::getAsJsonObject)
                    .toList();
            assertThat(events).allSatisfy(e -> assertThat(e.keySet()).contains("timestamp", "level", "loggerName"));
            assertThat(events)
                    .filteredOn(e -> e.get("formattedMessage").getAsString().startsWith(STARTED))
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.get("level").getAsString()).isEqualTo("DEBUG");
                        assertThat(e.get("loggerName").getAsString()).isEqualTo("dev.tenure.server.TenureServer");
                        assertThat(e.get("formattedMessage").getAsString())
                                .isEqualTo(STARTED + server.port + ", admin port off, 1 member(s), TLS off,"
                                        + " gRPC reflection on");
                    });
            // A line the node writes to its line stream: the wording kept, a level and a logger added.
            assertThat(events)
                    .filteredOn(e -> e.get("formattedMessage").getAsString().equals(UNSAFE))
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.get("level").getAsString()).isEqualTo("WARN");
                        assertThat(e.get("loggerName").getAsString()).isEqualTo("dev.tenure.server.TenureServer");
                        assertThat(e.get("message").getAsString()).isEqualTo(UNSAFE);
                    });
            assertThat(events)
                    .as("the debug lines of Netty, through java.util.logging and its bridge")
                    .anySatisfy(e -> {
                        assertThat(e.get("level").getAsString()).isEqualTo("DEBUG");
                        assertThat(e.get("loggerName").getAsString()).startsWith("io.grpc.netty.shaded.io.netty.");
                    });
            assertThat(server.lines())
                    .as("stdout keeps the node's one announced line")
                    .filteredOn(l -> l.startsWith("out: "))
                    .singleElement()
                    .satisfies(
                            l -> assertThat(l).startsWith("out: tenure: node 0 serving on 127.0.0.1:" + server.port));
        }
    }

    @Test
    void byDefaultTheLogIsTextAtInfoWithoutDebugLines() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data"))
                .withOptions("--unsafe-allow-forced-release")
                .start()) {
            List<String> lines = server.stderr();
            assertThat(lines)
                    .filteredOn(l -> l.endsWith(UNSAFE))
                    .singleElement()
                    .satisfies(l -> {
                        assertThat(l).matches(Processes.TEXT_LOG_PREFIX.pattern() + ".*");
                        assertThat(l).contains(" WARN  TenureServer " + UNSAFE);
                    });
            assertThat(lines).noneMatch(l -> l.contains(STARTED)).noneMatch(l -> l.contains(" DEBUG "));
        }
    }

    @Test
    void aLevelThatIsNoneExitsTwoNamingItAndStartsNothing() throws Exception {
        Path data = dir.resolve("never");
        try (Processes.Running node = Processes.serverOn(data, "--log-level", "dev.tenure=LOUD")) {
            assertThat(node.waitFor(Duration.ofSeconds(60))).isEqualTo(2);
            assertThat(node.output())
                    .isEqualTo("err: tenure: --log-level dev.tenure=LOUD: 'LOUD' is not a level; use one of TRACE,"
                            + " DEBUG, INFO, WARN, ERROR, OFF");
        }
        assertThat(data).as("nothing started").doesNotExist();
    }
}
