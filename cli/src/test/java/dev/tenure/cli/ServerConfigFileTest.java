package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/** {@code tenure server --config FILE} and {@code --print-config}, run in-process up to the print. */
class ServerConfigFileTest {

    @TempDir
    Path dir;

    @Test
    void theFileSetsOptionsAndFlagsWin() throws IOException {
        Path file = write("""
                port: 7600
                snapshot-interval: 2m
                watchers-max: 77
                limits:
                  sessionsMax: 5000
                  kvBytesMax: 64MiB
                """);
        Run r = run(
                "server",
                "--config",
                file.toString(),
                "--port",
                "7700",
                "--limit",
                "sessionsMax=6000",
                "--print-config");

        assertThat(r.code).as(r.err).isZero();
        Map<String, Object> printed = yaml(r.out);
        assertThat(printed.get("port")).isEqualTo(7700);
        assertThat(printed.get("admin-port")).isEqualTo(7701);
        assertThat(printed.get("snapshot-interval")).isEqualTo("2m");
        assertThat(printed.get("watchers-max")).isEqualTo(77);
        @SuppressWarnings("unchecked")
        Map<String, Object> limits = (Map<String, Object>) printed.get("limits");
        assertThat(limits.get("sessionsMax")).isEqualTo(6000);
        assertThat(limits.get("kvBytesMax")).isEqualTo(64 << 20);
    }

    @Test
    void membersAsAListAndBindAsItsOwnKey() throws IOException {
        Path file = write("""
                node-id: 1
                bind: 0.0.0.0
                members:
                  - {id: 0, host: 10.0.0.1, port: 7420}
                  - {id: 1, host: 10.0.0.2, port: 7420, cluster-port-base: 9000}
                  - {id: 2, host: 10.0.0.3, port: 7420}
                insecure: true
                """);
        Run r = run("server", "--config", file.toString(), "--print-config");

        assertThat(r.code).as(r.err).isZero();
        Map<String, Object> printed = yaml(r.out);
        assertThat(printed.get("bind")).isEqualTo("0.0.0.0");
        assertThat(printed.get("insecure")).isEqualTo(true);
        assertThat(printed.get("members"))
                .isEqualTo(List.of(
                        Map.of("id", 0, "host", "10.0.0.1", "port", 7420, "cluster-port-base", 7430),
                        Map.of("id", 1, "host", "10.0.0.2", "port", 7420, "cluster-port-base", 9000),
                        Map.of("id", 2, "host", "10.0.0.3", "port", 7420, "cluster-port-base", 7430)));
        assertThat(printed).doesNotContainKey("cluster-port-base");
    }

    @Test
    void printedConfigurationReadsBackToItself() throws IOException {
        Path first = write("""
                members: 0=127.0.0.1:7420,1=127.0.0.1:7440,2=127.0.0.1:7460
                node-id: 2
                ready-timeout: 1500ms
                list-page-bytes-max: 128KiB
                read-lease: 400ms
                """);
        Run once = run("server", "--config", first.toString(), "--print-config");
        assertThat(once.code).as(once.err).isZero();
        Path second = dir.resolve("printed.yaml");
        Files.writeString(second, once.out);

        Run twice = run("server", "--config", second.toString(), "--print-config");

        assertThat(twice.code).as(twice.err).isZero();
        assertThat(twice.out).isEqualTo(once.out);
        assertThat(yaml(once.out).get("ready-timeout")).isEqualTo("1500ms");
        assertThat(yaml(once.out).get("list-page-bytes-max")).isEqualTo("128KiB");
    }

    @Test
    void withoutAFileTheDefaultsArePrinted() {
        Run r = run("server", "--print-config");

        assertThat(r.code).as(r.err).isZero();
        Map<String, Object> printed = yaml(r.out);
        assertThat(printed.get("data")).isEqualTo("tenure-data");
        assertThat(printed.get("port")).isEqualTo(7420);
        assertThat(printed.get("cluster-port-base")).isEqualTo(7430);
        assertThat(printed.get("bind")).isEqualTo("127.0.0.1");
    }

    @Test
    void anUnknownKeyIsNamedWithItsLine() throws IOException {
        Path file = write("""
                port: 7600
                # a comment
                prot: 7601
                """);
        Run r = run("server", "--config", file.toString(), "--print-config");

        assertThat(r.code).isEqualTo(2);
        assertThat(r.out).isEmpty();
        assertThat(r.err.strip().lines()).hasSize(1);
        assertThat(r.err)
                .contains("config " + file + " line 3: unknown key 'prot'")
                .contains("port");
    }

    @Test
    void aBadValueIsNamedWithItsKeyAndLine() throws IOException {
        assertRefused("port: 7600\nsnapshot-interval: soon\n", "line 2: snapshot-interval:", "not a duration");
        assertRefused("port: seventy\n", "line 1: port:", "seventy");
        assertRefused("limits:\n  sessionMax: 5\n", "line 1: limits:", "no such limit");
        assertRefused("limits:\n  sessionsMax: many\n", "line 1: limits:", "not a whole number");
        assertRefused(
                "port: 7600\nlog-level: [INFO, dev.tenure=LOUD]\n", "line 2: log-level:", "'LOUD' is not a level");
        assertRefused("log-level: 'no such=WARN'\n", "line 1: log-level:", "is not a logger name");
        assertRefused("insecure: maybe\n", "line 1: insecure: 'maybe' is not true or false", "");
        assertRefused("members:\n  - {id: 0, host: a}\n", "line 2: members: a member without 'port'", "");
        assertRefused("members:\n  - {id: 0, host: a, port: 1, zone: x}\n", "unknown key 'zone'", "");
        assertRefused("port: 1\nport: 2\n", "line 2: port: given twice", "");
        assertRefused("port: [1, 2]\n", "line 1: port: a single value was expected", "");
        assertRefused("print-config: true\n", "unknown key 'print-config'", "");
        assertRefused("- port\n", "line 1: the file must be a mapping", "");
        assertRefused("port: [1\n", "not YAML", "");
    }

    @Test
    void aMissingFileIsBadInput() {
        Run r = run("server", "--config", dir.resolve("absent.yaml").toString(), "--print-config");

        assertThat(r.code).isEqualTo(2);
        assertThat(r.err).contains("cannot read it");
    }

    @Test
    void theFilesClusterStartWritesReadBack() throws IOException {
        Path file = dir.resolve("node-1.yaml");
        Files.writeString(
                file,
                dev.tenure.lab.process.NodeConfigFile.yaml(List.of(
                        "--node-id",
                        "1",
                        "--members",
                        "0=127.0.0.1:7420,1=127.0.0.1:7440,2=127.0.0.1:7460",
                        "--data",
                        "/tmp/c/node-1",
                        "--snapshot-interval",
                        "5000ms",
                        "--insecure",
                        "--limit",
                        "sessionsMax=300",
                        "--limit",
                        "kvBytesMax=1MiB")));

        Run r = run("server", "--config", file.toString(), "--print-config");

        assertThat(r.code).as(r.err).isZero();
        Map<String, Object> printed = yaml(r.out);
        assertThat(printed.get("node-id")).isEqualTo(1);
        assertThat(printed.get("data")).isEqualTo("/tmp/c/node-1");
        assertThat(printed.get("snapshot-interval")).isEqualTo("5s");
        assertThat(printed.get("insecure")).isEqualTo(true);
        assertThat(printed.get("admin-port")).isEqualTo(7441);
        @SuppressWarnings("unchecked")
        Map<String, Object> limits = (Map<String, Object>) printed.get("limits");
        assertThat(limits.get("sessionsMax")).isEqualTo(300);
        assertThat(limits.get("kvBytesMax")).isEqualTo(1 << 20);
    }

    @Test
    void otherCommandsAreNotExpanded() {
        String[] args = {"status", "--config", "x"};
        assertThat(ServerConfigFile.expand(args)).isSameAs(args);
    }

    private void assertRefused(String content, String expected, String alsoExpected) throws IOException {
        Path file = write(content);
        Run r = run("server", "--config", file.toString(), "--print-config");
        assertThat(r.code).as(content).isEqualTo(2);
        assertThat(r.out).as(content).isEmpty();
        assertThat(r.err).as(content).contains(expected).contains(alsoExpected);
    }

    private Path write(String content) throws IOException {
        Path file = Files.createTempFile(dir, "tenure", ".yaml");
        Files.writeString(file, content);
        return file;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> yaml(String text) {
        return (Map<String, Object>) new Load(LoadSettings.builder().build()).loadFromString(text);
    }

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        StringWriter err = new StringWriter();
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.run(new PrintWriter(err, true), args);
        } finally {
            System.setOut(stdout);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString());
    }
}
