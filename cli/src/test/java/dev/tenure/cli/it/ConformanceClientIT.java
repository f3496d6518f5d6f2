package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The conformance client in {@code conformance/}: a Node program written from docs/protocol.md and
 * the .proto alone, that runs the README walk-through, a request-id retry, a crash takeover, a
 * stale-token refusal, an owner-bound release, the horizon and a resume through the raw protocol
 * against a real node. Every scenario's line must say ok, and the program must exit 0: if the spec
 * leaves out something a client needs, a client built from it fails here.
 *
 * <p>Node and npm are needed: without them this test fails, naming them (bin/test installs them).
 */
class ConformanceClientIT extends OnOneNode {

    /** Every scenario run.js runs, in its order: a run that skipped one must not pass. */
    private static final List<String> SCENARIOS = List.of(
            "walkthrough",
            "request-id-retry",
            "crash-takeover",
            "stale-token",
            "owner-bound-release",
            "horizon",
            "resume");

    @Test
    void theNodeClientPassesEveryScenarioAgainstARealNode() throws Exception {
        Path conformance = conformanceDir();
        String node = onPath("node");
        if (!Files.isDirectory(conformance.resolve("node_modules"))) {
            npmCi(conformance);
        }
        List<String> command =
                List.of(node, conformance.resolve("run.js").toString(), "--endpoint", server.endpoint(), "--json");
        try (var run = new Processes.Running(command, Map.of())) {
            int exit = run.waitFor(Duration.ofMinutes(3));
            List<String> lines = new ArrayList<>(run.stdout);
            List<String> names = new ArrayList<>();
            for (String line : lines) {
                JsonObject scenario = json(line);
                names.add(scenario.get("scenario").getAsString());
                assertThat(scenario.get("ok").getAsBoolean())
                        .as("%s\n%s", line, run.output())
                        .isTrue();
            }
            assertThat(names).as(run.output()).isEqualTo(SCENARIOS);
            assertThat(exit).as(run.output()).isZero();
        }
    }

    /** The repository's conformance/ folder, found from the jar under test (cli/target/tenure.jar). */
    private static Path conformanceDir() {
        Path root = Processes.jar().toAbsolutePath().getParent().getParent().getParent();
        Path dir = root.resolve("conformance");
        assertThat(dir.resolve("run.js")).as("the conformance client").isRegularFile();
        return dir;
    }

    /** Installs the pinned packages of package-lock.json (npm ci), as a fresh checkout needs. */
    private static void npmCi(Path conformance) throws Exception {
        List<String> command =
                List.of(onPath("npm"), "ci", "--prefix", conformance.toString(), "--no-audit", "--no-fund");
        try (var npm = new Processes.Running(command, Map.of())) {
            assertThat(npm.waitFor(Duration.ofMinutes(5))).as(npm.output()).isZero();
        }
    }

    /** The executable {@code tool} on PATH; fails naming it when it is missing, never skips. */
    private static String onPath(String tool) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(Pattern.quote(File.pathSeparator), -1)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, tool);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new AssertionError(tool + " is not on PATH: the conformance client needs Node 20 and npm"
                + " (bin/test installs them on Debian: apt-get install nodejs npm)");
    }
}
