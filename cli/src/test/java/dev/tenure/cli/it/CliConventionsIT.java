package dev.tenure.cli.it;

import static dev.tenure.cli.it.TenureCli.TENURE_FUNCTION;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The CLI's conventions against a real node: under `--json` a call the node refuses is one JSON
 * object on stdout naming the node's code and the exit status, and nothing on stderr; the
 * commands that printed only text print an object; the client options come from `TENURE_*`.
 */
class CliConventionsIT extends OnOneNode {

    private static final Duration EXIT = Duration.ofSeconds(60);

    /** Runs `tenure ARGS` with {@code env} added to its end; the exit code, its output lines in {@code out[0]}. */
    private static int exit(String[] out, Map<String, String> env, String... args) throws Exception {
        try (var p = cli.withEnv(env).run(args)) {
            int code = p.waitFor(EXIT);
            out[0] = p.output();
            return code;
        }
    }

    private static int exit(String[] out, String... args) throws Exception {
        return exit(out, Map.of(), args);
    }

    /** The one line of {@code output}, which must be on stdout, as JSON. */
    private static JsonObject onlyStdoutLine(String output) {
        assertThat(output.lines().toList()).as(output).hasSize(1).allMatch(l -> l.startsWith("out: {"));
        return json(output.substring("out: ".length()));
    }

    @Test
    void aRefusedCallUnderJsonIsOneObjectOnStdout() throws Exception {
        try (var holder = tenure("acquire", "conv/held", "--json")) {
            long token =
                    json(holder.nextLine(Duration.ofSeconds(60))).get("token").getAsLong();
            String[] out = new String[1];

            assertThat(exit(out, "acquire", "conv/held", "--no-wait", "--json"))
                    .as(out[0])
                    .isEqualTo(3);
            JsonObject held = onlyStdoutLine(out[0]);
            assertThat(held.keySet()).containsExactly("error", "code", "exit");
            assertThat(held.get("code").getAsString()).isEqualTo("LOCK_HELD");
            assertThat(held.get("exit").getAsInt()).isEqualTo(3);
            assertThat(held.get("error").getAsString()).startsWith("held: ");

            assertThat(exit(out, "checkpoint", "--json", "--lock", "conv/held", "--token", "" + (token + 1), "v"))
                    .as(out[0])
                    .isEqualTo(3);
            JsonObject stale = onlyStdoutLine(out[0]);
            assertThat(stale.get("code").getAsString()).isIn("STALE_TOKEN", "NOT_OWNER");
            assertThat(stale.get("exit").getAsInt()).isEqualTo(3);

            assertThat(exit(out, "release", "conv/held", "--token", "" + token, "--json"))
                    .as(out[0])
                    .isEqualTo(3);
            assertThat(onlyStdoutLine(out[0]).get("code").getAsString()).isEqualTo("NOT_OWNER");
        }
    }

    @Test
    void kvWritesPrintAnObjectUnderJson() throws Exception {
        String[] out = new String[1];
        assertThat(exit(out, "kv", "put", "conv/k", "v", "--json")).as(out[0]).isZero();
        assertThat(onlyStdoutLine(out[0]).toString()).isEqualTo("{\"key\":\"conv/k\",\"version\":1}");
        assertThat(exit(out, "kv", "del", "conv/k", "--json")).as(out[0]).isZero();
        assertThat(onlyStdoutLine(out[0]).toString()).isEqualTo("{\"key\":\"conv/k\",\"result\":\"deleted\"}");
        assertThat(exit(out, "kv", "del", "conv/k", "--json")).as(out[0]).isZero();
        assertThat(onlyStdoutLine(out[0]).toString()).isEqualTo("{\"key\":\"conv/k\",\"result\":\"absent\"}");
    }

    @Test
    void aCheckpointUnderTenureRunTakesItsLockAndTokenFromTheEnvironment() throws Exception {
        try (var run =
                tenure("run", "conv/run", "--", "sh", "-c", TENURE_FUNCTION + "tenure checkpoint --json 'row 7'")) {
            assertThat(run.waitFor(EXIT)).as(run.output()).isZero();
            JsonObject written = json(run.nextLine(Duration.ofSeconds(1)));
            assertThat(written.get("lock").getAsString()).isEqualTo("conv/run");
            assertThat(written.get("bytes").getAsInt()).isEqualTo(5);
        }
        try (var next = tenure("run", "conv/run", "--", "sh", "-c", "echo \"$TENURE_CHECKPOINT\"")) {
            assertThat(next.waitFor(EXIT)).isZero();
            assertThat(next.nextLine(Duration.ofSeconds(1))).isEqualTo("row 7");
        }
    }

    @Test
    void aClientOptionComesFromItsVariableAndAFlagWinsOverIt() throws Exception {
        String[] out = new String[1];
        // A timeout of the wrong form in the environment is bad input, as it is as a flag.
        assertThat(exit(out, Map.of("TENURE_TIMEOUT", "soon"), "status", "--json"))
                .as(out[0])
                .isEqualTo(2);
        assertThat(onlyStdoutLine(out[0]).get("code").getAsString()).isEqualTo("BAD_INPUT");
        // The flag wins: the same variable is never read.
        assertThat(exit(out, Map.of("TENURE_TIMEOUT", "soon"), "status", "--json", "--timeout", "20s"))
                .as(out[0])
                .isZero();
        // An endpoint nobody serves, from the variable: unavailable once the variable's timeout ran out.
        assertThat(exit(out, Map.of("TENURE_ENDPOINT", "127.0.0.1:1", "TENURE_TIMEOUT", "1s"), "status", "--json"))
                .as(out[0])
                .isEqualTo(5);
        assertThat(onlyStdoutLine(out[0]).get("code").getAsString()).isEqualTo("UNAVAILABLE");
    }
}
