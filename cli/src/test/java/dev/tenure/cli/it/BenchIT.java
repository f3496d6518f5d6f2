package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** `tenure bench` against a real single-node server process, briefly: the output's shape, not its figures. */
class BenchIT extends OnOneNode {

    private static final List<String> FIXED_FIELDS = List.of(
            "workload", "clients", "ops", "seconds", "ops_per_s", "p50_ms", "p90_ms", "p99_ms", "p999_ms", "max_ms");

    private static List<JsonObject> bench(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("bench"));
        all.addAll(List.of(args));
        all.addAll(List.of("--endpoints", server.endpoint(), "--json", "--data", data.toString()));
        var run = cli.run(all);
        assertThat(run.waitFor(Duration.ofMinutes(2))).as(run.output()).isZero();
        List<JsonObject> lines = new ArrayList<>();
        String line;
        while ((line = run.stdout.poll()) != null) {
            lines.add(JsonParser.parseString(line).getAsJsonObject());
        }
        return lines;
    }

    @Test
    void workloadsPrintOneJsonLineEachWithOperations() throws Exception {
        List<JsonObject> lines = bench(
                "uncontended",
                "sporadic",
                "parallel",
                "contended",
                "fenced-write",
                "--duration",
                "2s",
                "--warmup",
                "1s");
        assertThat(lines)
                .extracting(o -> o.get("workload").getAsString())
                .containsExactly("uncontended", "sporadic", "parallel", "contended", "fenced-write");
        for (JsonObject o : lines) {
            assertThat(o.keySet()).as(o.toString()).containsAll(FIXED_FIELDS);
            assertThat(o.get("ops").getAsLong()).as(o.toString()).isPositive();
            assertThat(o.get("ops_per_s").getAsDouble()).as(o.toString()).isPositive();
            assertThat(o.get("p50_ms").getAsDouble()).as(o.toString()).isPositive();
            assertThat(o.get("max_ms").getAsDouble())
                    .as(o.toString())
                    .isGreaterThanOrEqualTo(o.get("p99_ms").getAsDouble());
            assertThat(o.has("errors")).as(o.toString()).isFalse();
        }
    }

    @Test
    void holdReportsTheServersCpuAndMemoryPerSession() throws Exception {
        List<JsonObject> lines = bench(
                "hold",
                "--sessions",
                "50",
                "--clients",
                "2",
                "--duration",
                "1s",
                "--warmup",
                "1s",
                "--server-pid",
                Long.toString(server.pid()));
        assertThat(lines).hasSize(1);
        JsonObject o = lines.get(0);
        assertThat(o.get("workload").getAsString()).isEqualTo("hold");
        assertThat(o.get("ops").getAsLong()).isEqualTo(50);
        assertThat(o.get("sessions_not_connected").getAsLong()).isZero();
        assertThat(o.get("server_pids").getAsString()).isEqualTo(Long.toString(server.pid()));
        assertThat(o.get("server_cpu_pct_of_one_core").getAsDouble()).isGreaterThanOrEqualTo(0);
        assertThat(o.has("server_heap_bytes_per_session")).isTrue();
        assertThat(o.has("server_rss_bytes_per_session")).isTrue();
    }

    @Test
    void watchTimesEachGrantAtEveryWatch() throws Exception {
        List<JsonObject> lines = bench("watch", "--watchers", "5", "--duration", "2s", "--warmup", "1s");
        assertThat(lines).hasSize(1);
        JsonObject o = lines.get(0);
        assertThat(o.get("workload").getAsString()).isEqualTo("watch");
        assertThat(o.get("watchers").getAsInt()).isEqualTo(5);
        long grants = o.get("ops").getAsLong();
        assertThat(grants).isPositive();
        // Each measured grant reaches all 5 watches (the window's edges differ by a cycle or so).
        assertThat(o.get("watch_grant_events_measured").getAsLong())
                .as(o.toString())
                .isGreaterThanOrEqualTo(5 * grants / 2);
        assertThat(o.get("watch_event_p99_ms").getAsDouble())
                .as(o.toString())
                .isGreaterThanOrEqualTo(o.get("watch_event_p50_ms").getAsDouble());
        assertThat(o.get("watches_ended").getAsLong()).isZero();
    }

    @Test
    void electionHandsLeadershipOverEachRound() throws Exception {
        List<JsonObject> lines = bench("election", "--clients", "3", "--rounds", "12");
        assertThat(lines).hasSize(1);
        JsonObject o = lines.get(0);
        assertThat(o.get("workload").getAsString()).isEqualTo("election");
        assertThat(o.get("clients").getAsInt()).isEqualTo(3);
        assertThat(o.get("ops").getAsLong()).as(o.toString()).isEqualTo(12);
        assertThat(o.get("p50_ms").getAsDouble()).as(o.toString()).isPositive();
        assertThat(o.get("connections_replaced").getAsLong()).as(o.toString()).isZero();
    }

    @Test
    void electionRefusesOneCandidate() throws Exception {
        var run = cli.run(List.of("bench", "election", "--clients", "1", "--endpoints", server.endpoint()));
        assertThat(run.waitFor(Duration.ofMinutes(1))).as(run.output()).isEqualTo(2);
        assertThat(run.output()).contains("at least 2 candidates");
    }
}
