package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tenure.process.JavaCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * deploy/tenure.service and deploy/tenure.yaml, which docs/cluster.md's three-host walk-through
 * installs: the example file is one {@code tenure server --config} accepts, and the unit starts
 * the node from it with a stop window, restarts and hardening that fit the node.
 */
class DeployFilesTest {

    private static final Path DEPLOY = repositoryRoot().resolve("deploy");
    private static final String CONFIG = "/etc/tenure/tenure.yaml";

    @TempDir
    Path dir;

    @Test
    void theExampleNodeFileIsAcceptedWithItsPathsMovedHere() throws IOException {
        Files.createDirectories(dir.resolve("etc"));
        for (String file : List.of("node.pem", "node.key", "cluster.secret")) {
            Files.writeString(dir.resolve("etc").resolve(file), "placeholder, 16 bytes or more\n");
        }
        String yaml = Files.readString(DEPLOY.resolve("tenure.yaml"))
                .replace("/var/lib/tenure", dir.resolve("data").toString())
                .replace("/etc/tenure/", dir.resolve("etc") + "/");
        Path file = Files.writeString(dir.resolve("tenure.yaml"), yaml);

        CliRun r = CliRun.of("server", "--config", file.toString(), "--print-config");

        assertThat(r.exit()).as(r.err()).isZero();
        Map<String, Object> printed = yaml(r.out());
        assertThat(printed.get("node-id")).isEqualTo(0);
        assertThat(printed.get("bind")).isEqualTo("0.0.0.0");
        assertThat(printed.get("data")).isEqualTo(dir.resolve("data").toString());
        assertThat(printed.get("admin-port")).isEqualTo(7421);
        assertThat(printed.get("members").toString())
                .contains("10.0.0.1")
                .contains("10.0.0.2")
                .contains("10.0.0.3");
    }

    @Test
    void theUnitStartsTheNodeFromTheFileAndWritesOnlyItsDataDirectory() throws IOException {
        Map<String, List<String>> service = section(Files.readString(DEPLOY.resolve("tenure.service")), "Service");
        Map<String, Object> node = yaml(Files.readString(DEPLOY.resolve("tenure.yaml")));

        List<String> exec = List.of(one(service, "ExecStart").split("\\s+", -1));
        assertThat(exec.subList(1, exec.size())).containsExactly("server", "--config", CONFIG);
        assertThat(exec.get(0)).endsWith("/tenure");
        assertThat(one(service, "User")).isEqualTo("tenure");
        assertThat(one(service, "Restart")).isEqualTo("on-failure");
        // 2: bad options; 12: a corrupt data file, which a restart on the same data repeats.
        assertThat(one(service, "RestartPreventExitStatus").split(" ", -1)).containsExactlyInAnyOrder("2", "12");
        assertThat(one(service, "SuccessExitStatus")).isEqualTo("143");
        assertThat(Integer.parseInt(one(service, "LimitNOFILE"))).isGreaterThanOrEqualTo(65_536);
        assertThat(one(service, "NoNewPrivileges")).isEqualTo("yes");
        assertThat(one(service, "ProtectSystem")).isEqualTo("strict");
        assertThat(one(service, "ReadWritePaths")).isEqualTo(node.get("data"));
        // `tenure cluster stop` gives a node 10 s after SIGTERM before SIGKILL; the unit no less.
        assertThat(seconds(one(service, "TimeoutStopSec"))).isGreaterThanOrEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void everyWayToStartANodeGivesItTheSameJvmOptions() throws IOException {
        // The memory budget and docs/memory.md's figures hold for these options: bin/tenure's
        // `server`, the unit and the nodes Tenure launches (cluster start, the lab) must agree.
        String environment = one(section(Files.readString(DEPLOY.resolve("tenure.service")), "Service"), "Environment");
        assertThat(environment).startsWith("\"TENURE_JAVA_OPTS=").endsWith("\"");
        List<String> unitOptions = List.of(environment
                .substring("\"TENURE_JAVA_OPTS=".length(), environment.length() - 1)
                .split(" ", -1));
        assertThat(unitOptions).isEqualTo(JavaCommand.NODE_JVM);

        String launcher = Files.readString(repositoryRoot().resolve("bin/tenure"));
        int server = launcher.indexOf("elif [[ \"${1:-}\" == \"server\" ]]; then");
        assertThat(server).as("bin/tenure's server branch").isPositive();
        int start = launcher.indexOf("opts=(", server) + "opts=(".length();
        List<String> launcherOptions =
                List.of(launcher.substring(start, launcher.indexOf(')', start)).split(" ", -1));
        assertThat(launcherOptions).isEqualTo(JavaCommand.NODE_JVM);
    }

    @Test
    void systemdAcceptsTheUnit() throws Exception {
        assumeTrue(onPath("systemd-analyze"), "systemd-analyze is not installed");
        // verify checks that ExecStart's program exists: the repository's launcher stands in.
        String unit = Files.readString(DEPLOY.resolve("tenure.service"))
                .replace(
                        "/opt/tenure/bin/tenure",
                        repositoryRoot().resolve("bin/tenure").toString());
        Path copy = Files.writeString(dir.resolve("tenure.service"), unit);
        Process p = new ProcessBuilder("systemd-analyze", "verify", copy.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(output).as("systemd-analyze verify").isEmpty();
        assertThat(p.exitValue()).as(output).isZero();
    }

    /** A unit file's section as key to values, in order (a key may repeat). */
    private static Map<String, List<String>> section(String unit, String name) {
        Map<String, List<String>> keys = new LinkedHashMap<>();
        String current = null;
        for (String raw : unit.split("\n", -1)) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[")) {
                current = line.substring(1, line.length() - 1);
            } else if (name.equals(current)) {
                String[] kv = line.split("=", 2);
                keys.computeIfAbsent(kv[0], k -> new ArrayList<>()).add(kv[1]);
            }
        }
        return keys;
    }

    private static String one(Map<String, List<String>> section, String key) {
        assertThat(section.get(key)).as(key).hasSize(1);
        return section.get(key).get(0);
    }

    private static Duration seconds(String value) {
        assertThat(value).matches("\\d+s");
        return Duration.ofSeconds(Long.parseLong(value.substring(0, value.length() - 1)));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(String text) {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
    }

    private static boolean onPath(String program) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":", -1)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("deploy"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no deploy/ above " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
