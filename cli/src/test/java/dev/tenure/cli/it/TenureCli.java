package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** `tenure` client commands against one endpoint, as a user runs them, and what the tests read from them. */
final class TenureCli {
    private final String endpoint;

    TenureCli(String endpoint) {
        this.endpoint = endpoint;
    }

    /** `tenure ARGS --endpoint E`, started. */
    Processes.Running run(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        all.add("--endpoint");
        all.add(endpoint);
        return new Processes.Running(Processes.tenure(all), Map.of());
    }

    static JsonObject json(String line) {
        return JsonParser.parseString(line).getAsJsonObject();
    }

    /** The token of the lock's holder, from `tenure status --json`. */
    long holderToken(String lock) throws Exception {
        var status = run("status", lock, "--json");
        assertThat(status.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
        return json(status.nextLine(Duration.ofSeconds(1)))
                .getAsJsonObject("holder")
                .get("token")
                .getAsLong();
    }

    /** Polls the lock's status until one waiter is queued on the server. */
    void awaitQueued(String lock) throws Exception {
        long deadline =
                System.nanoTime() + Processes.scaled(Duration.ofSeconds(30)).toNanos();
        while (true) {
            var status = run("status", lock, "--json");
            status.waitFor(Duration.ofSeconds(30));
            String line = status.stdout.poll();
            if (line != null && json(line).getAsJsonArray("waiters").size() == 1) {
                return;
            }
            assertThat(System.nanoTime()).as("a waiter queued on %s", lock).isLessThan(deadline);
        }
    }
}
