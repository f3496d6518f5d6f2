package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.testkit.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ITs' one way to run a `tenure` client command as a user does: the shaded jar in a process of
 * its own, its exit status and output lines captured ({@link Processes.Running}).
 *
 * <p>The endpoint reaches the command as {@code TENURE_ENDPOINT}, not as a flag appended to its
 * arguments: a flag after `tenure run ... --` would go to the command run, and a shell command run
 * under the lock reaches the same node with the same variable. A command that names
 * {@code --endpoint} itself (through a proxy, say) goes there: the flag wins over the variable.
 */
final class TenureCli {
    /**
     * A shell function {@code tenure} that runs {@code TENURE_CMD} (quoted word by word) with its
     * arguments, for the shell commands under `tenure run`: a variable's quotes are not parsed when
     * it is expanded, so the line is evaluated.
     */
    static final String TENURE_FUNCTION = "tenure() { eval \"$TENURE_CMD\"' \"$@\"'; }; ";

    private final Map<String, String> env;

    /** Commands against {@code endpoint} ({@code host:port[,host:port...]}). */
    TenureCli(String endpoint) {
        this(Map.of("TENURE_ENDPOINT", endpoint, "TENURE_CMD", Processes.tenureShellLine(List.of())));
    }

    private TenureCli(Map<String, String> env) {
        this.env = Map.copyOf(env);
    }

    /** The same commands with {@code more} in their environment as well (a {@code PATH}, say). */
    TenureCli withEnv(Map<String, String> more) {
        Map<String, String> all = new HashMap<>(env);
        all.putAll(more);
        return new TenureCli(all);
    }

    /**
     * `tenure ARGS` that reach no node through an endpoint (`cluster start`, `repair-log`, `lab`, a
     * `server` that must refuse to start), started.
     */
    static Processes.Running start(List<String> args) throws IOException {
        return new Processes.Running(Processes.tenure(args), Map.of());
    }

    /**
     * `tenure ARGS` that reach no node through this fixture (`backup --endpoint`, `restore`), run to
     * the end: it must exit {@code exit} within 60 s; returns its last stdout line ("" if none).
     */
    static String lastLine(int exit, String... args) throws Exception {
        try (Processes.Running p = start(List.of(args))) {
            assertThat(p.waitFor(Duration.ofSeconds(60))).as(p.output()).isEqualTo(exit);
            List<String> out = p.stdout.stream().toList();
            return out.isEmpty() ? "" : out.get(out.size() - 1);
        }
    }

    /** `tenure ARGS` against the endpoint, started. */
    Processes.Running run(String... args) throws Exception {
        return run(List.of(args));
    }

    /** `tenure ARGS` against the endpoint, started. */
    Processes.Running run(List<String> args) throws Exception {
        return new Processes.Running(Processes.tenure(args), env);
    }

    static JsonObject json(String line) {
        return JsonParser.parseString(line).getAsJsonObject();
    }

    /**
     * The request timeout of the fixture's own status reads: the node's answer, not its speed on a
     * loaded machine, is what they read, so they wait as {@link ServerProcess#patientClient} does.
     */
    private static final String PATIENT =
            Processes.scaled(Duration.ofSeconds(20)).toMillis() + "ms";

    /** The lock's view, from `tenure status LOCK --json`, which must exit 0. */
    JsonObject status(String lock) throws Exception {
        try (var status = run("status", lock, "--json", "--timeout", PATIENT)) {
            assertThat(status.waitFor(Duration.ofSeconds(30)))
                    .as(status.output())
                    .isEqualTo(0);
            return json(status.nextLine(Duration.ofSeconds(1)));
        }
    }

    /** The token of the lock's holder, from `tenure status --json`. */
    long holderToken(String lock) throws Exception {
        return status(lock).getAsJsonObject("holder").get("token").getAsLong();
    }

    /**
     * Waits until {@code waiter} (a `tenure acquire` or `tenure run` of the lock) is queued on the
     * lock, as `tenure status --json` shows it; fails at once, with its output, if it exits, and
     * looks again after a status that failed (a node still busy).
     */
    void awaitQueued(String lock, Processes.Running waiter) throws Exception {
        String client = "\"tenure-cli pid " + waiter.pid() + "\"";
        Await.atMost(Duration.ofSeconds(60))
                .every(Duration.ofMillis(200))
                .failureDetails(waiter::output)
                .until(
                        "the waiter (pid " + waiter.pid() + ") queued on " + lock,
                        () -> {
                            assertThat(waiter.process.isAlive())
                                    .as("the waiter waits: %s", waiter.output())
                                    .isTrue();
                            try (var status = run("status", lock, "--json", "--timeout", PATIENT)) {
                                status.waitFor(Duration.ofSeconds(60));
                                return status.stdout.poll();
                            }
                        },
                        line -> line != null
                                && json(line)
                                        .getAsJsonArray("waiters")
                                        .toString()
                                        .contains(client));
    }
}
