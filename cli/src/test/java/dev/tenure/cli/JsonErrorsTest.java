package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.client.TenureException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Under {@code --json} every failure is exactly one JSON object on stdout, {@code error},
 * {@code code} and {@code exit}, and the process exits with that {@code exit}; nothing on stderr.
 * Without it, the same failure is a line on stderr and nothing on stdout. Bad input here, found
 * by picocli or by a command itself; a call the node refuses is in the ITs.
 */
class JsonErrorsTest {

    @TempDir
    static Path dir;

    static List<List<String>> badInput() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        List<List<String>> runs = new ArrayList<>();
        runs.add(List.of("acquire", "--json")); // no LOCK
        runs.add(List.of("acquire", "--json", "--ttl", "soon", "a"));
        runs.add(List.of("run", "--json", "--wait", "soon", "a", "--", "true"));
        runs.add(List.of("elect", "--json", "--timeout", "x", "e"));
        runs.add(List.of("release", "--json", "a")); // no --token
        runs.add(List.of("status", "--json", "--no-such-option"));
        runs.add(List.of("locks", "--json", "--timeout", "5 parsecs"));
        runs.add(List.of("watch", "--json", "--from-revision", "r"));
        runs.add(List.of("kv", "put", "--json")); // no KEY
        runs.add(List.of("kv", "get", "--json"));
        runs.add(List.of("kv", "del", "--json", "k", "--if-version", "v"));
        runs.add(List.of("checkpoint", "--json", "--lock", "a", "v")); // no --token
        runs.add(List.of("server", "--json", "--port", "port"));
        runs.add(List.of("cluster", "start", "--json", "--nodes", "three"));
        runs.add(List.of("cluster", "stop", "--json")); // no --data
        runs.add(List.of("upgrade-data", "--json", "--data"));
        runs.add(List.of("repair-log", "--json", "--accept-loss-from", "end"));
        runs.add(List.of("bench", "--json", "no-such-workload")); // refused by the command itself
        runs.add(List.of("lab", "--json", "no-such-scenario"));
        runs.add(List.of("completion", "--json", "fish"));
        runs.add(List.of("man", "--json", "--dir", file.toString())); // refused by the command itself
        runs.add(List.of("no-such-command", "--json"));
        return runs;
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void underJsonBadInputIsOneObjectOnStdoutAndExit2(List<String> args) {
        CliRun run = CliRun.of(args.toArray(String[]::new));

        assertThat(run.exit()).as(args + ": " + run.out() + run.err()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).as(args + ": stderr").isEmpty();
        assertThat(run.out().lines().toList()).as(args + ": stdout").hasSize(1);
        JsonObject error = JsonParser.parseString(run.out()).getAsJsonObject();
        assertThat(error.keySet()).as(args.toString()).containsExactly("error", "code", "exit");
        assertThat(error.get("error").getAsString()).as(args.toString()).isNotBlank();
        assertThat(error.get("code").getAsString()).as(args.toString()).isEqualTo("BAD_INPUT");
        assertThat(error.get("exit").getAsInt()).as(args.toString()).isEqualTo(ExitCodes.BAD_INPUT);
    }

    @ParameterizedTest
    @MethodSource("badInput")
    void withoutJsonTheSameFailureIsALineOnStderr(List<String> args) {
        List<String> plain = args.stream().filter(a -> !a.equals("--json")).toList();
        CliRun run = CliRun.of(plain.toArray(String[]::new));

        assertThat(run.exit()).as(plain.toString()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.out()).as(plain + ": stdout").isEmpty();
        assertThat(run.err()).as(plain + ": stderr").isNotBlank().doesNotStartWith("{");
    }

    @Test
    void jsonIsAskedForAmongTheOptionsNotInTheArgumentsOfAnotherCommand() {
        assertThat(Failures.jsonRequested("status", "--json")).isTrue();
        assertThat(Failures.jsonRequested("run", "--json", "a", "--", "cmd")).isTrue();
        assertThat(Failures.jsonRequested("run", "a", "--", "cmd", "--json")).isFalse();
        assertThat(Failures.jsonRequested("status")).isFalse();
    }

    @Test
    void aRefusedCallNamesTheNodesCodeAndItsExit() {
        String line = Failures.jsonLine(Failures.of(new TenureException(TenureException.Code.LOCK_HELD, "by token 7")));
        assertThat(line).isEqualTo("{\"error\":\"held: by token 7\",\"code\":\"LOCK_HELD\",\"exit\":3}");

        line = Failures.jsonLine(Failures.of(new TenureException(TenureException.Code.UNAVAILABLE, "no quorum")));
        assertThat(line).isEqualTo("{\"error\":\"unavailable: no quorum\",\"code\":\"UNAVAILABLE\",\"exit\":5}");
    }

    @Test
    void aFailureOfTheCliItselfIsNamedByItsExitCode() {
        assertThat(Failures.jsonLine(new IllegalStateException("boom")))
                .isEqualTo("{\"error\":\"boom\",\"code\":\"UNEXPECTED\",\"exit\":1}");
        assertThat(Failures.jsonLine(new ExitCodes.CliException(ExitCodes.CONFLICT, "absent")))
                .isEqualTo("{\"error\":\"absent\",\"code\":\"CONFLICT\",\"exit\":3}");
    }
}
