package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * /metrics of a real node after a known sequence: three grants, one release, one holder killed
 * (a disconnect). The counters have exact values, the histograms their buckets, no series names
 * a lock, and every metric docs/metrics.md and docs/grafana-dashboard.json name is exported.
 */
class MetricsIT extends OnOneNode {

    /** Distinctive names: none may appear anywhere in the scrape. */
    private static final List<String> LOCKS =
            List.of("metrics-alpha-7f3e91", "metrics-beta-9c1d27", "metrics-gamma-4b2a55");

    private static final Pattern METRIC = Pattern.compile("\\b((?:tenure|grpc_server)_[a-z_]+)");

    @BeforeAll
    static void start() throws Exception {
        serve(new ServerProcess(data).withAdmin());
    }

    @Test
    void aKnownSequenceGivesExactCountersHistogramsAndNoLockNames() throws Exception {
        String scrape;
        try (TenureClient client = server.patientClient();
                Session session = client.openSession()) {
            try (Lease first = session.acquire(LOCKS.get(0))) {
                assertThat(first.token()).isPositive();
            } // released
            try (var holder = tenure("acquire", LOCKS.get(1), "--ttl", "30s", "--json")) {
                assertThat(json(holder.nextLine(Duration.ofSeconds(30)))
                                .get("token")
                                .getAsLong())
                        .isPositive();
                holder.kill9(); // its stream breaks: DISCONNECTED after the grace
            }
            Lease third = session.acquire(LOCKS.get(2)); // held while the node is scraped
            assertThat(third.token()).isPositive();
            scrape = Await.atMost(Processes.scaled(Duration.ofSeconds(20)))
                    .every(Duration.ofMillis(200))
                    .until(
                            "the disconnect is counted",
                            MetricsIT::scrape,
                            s -> s.contains("tenure_lease_ends_total{reason=\"disconnected\"} 1.0"));
        }
        assertThat(scrape)
                .contains("tenure_grants_total 3.0")
                .contains("tenure_lease_ends_total{reason=\"released\"} 1.0")
                .contains("tenure_lease_ends_total{reason=\"expired\"} 0.0")
                .contains("tenure_lease_ends_total{reason=\"revoked\"} 0.0")
                .contains("tenure_acquire_wait_seconds_count{result=\"GRANTED\"} 3")
                .contains("tenure_acquire_wait_seconds_bucket{result=\"GRANTED\",le=\"+Inf\"} 3")
                .contains("tenure_hold_seconds_count 2")
                .contains("tenure_hold_seconds_bucket{le=\"+Inf\"} 2")
                .contains("tenure_hold_seconds_bucket{le=\"0.01\"}")
                .contains("tenure_handoff_seconds_count 0")
                .contains("tenure_session_resets_total 1.0")
                .containsPattern("tenure_commit_seconds_bucket\\{le=\"0.001\"} \\d+")
                .containsPattern(
                        "grpc_server_processing_duration_seconds_bucket\\{method=\"Acquire\"[^}]*le=\"\\+Inf\"} [1-9]")
                .contains("tenure_leader_changes_total");
        assertThat(count(scrape, "tenure_commit_seconds_count")).isPositive();
        for (String lock : LOCKS) {
            assertThat(scrape).as("a label names lock %s", lock).doesNotContain(lock);
        }
        // Every histogram's +Inf bucket equals its _count: nothing is lost between them.
        for (String line : scrape.lines()
                .filter(l -> l.contains("_bucket{") && l.contains("le=\"+Inf\""))
                .toList()) {
            String labels = line.substring(line.indexOf('{'), line.lastIndexOf('}') + 1)
                    .replaceAll(",?le=\"\\+Inf\"", "")
                    .replace("{}", "");
            String countSeries = line.substring(0, line.indexOf("_bucket{")) + "_count" + labels;
            assertThat(count(scrape, countSeries)).as(countSeries).isEqualTo(value(line));
        }
    }

    @Test
    void everyMetricTheDocsAndTheDashboardNameIsExported() throws Exception {
        Set<String> exported = new TreeSet<>();
        for (String line : scrape().lines().toList()) {
            if (line.startsWith("# TYPE ")) {
                String rest = line.substring("# TYPE ".length());
                exported.add(rest.substring(0, rest.indexOf(' ')));
            }
        }
        String dashboard = Files.readString(Path.of("..", "docs", "grafana-dashboard.json"), StandardCharsets.UTF_8);
        List<String> exprs = new ArrayList<>();
        collectExprs(JsonParser.parseString(dashboard), exprs); // throws on invalid JSON
        assertThat(exprs).hasSizeGreaterThan(10);
        Set<String> named = namesIn(String.join("\n", exprs));
        assertThat(named).contains("tenure_acquire_wait_seconds", "tenure_health_ok", "tenure_lease_ends_total");
        String docs = Files.readString(Path.of("..", "docs", "metrics.md"), StandardCharsets.UTF_8);
        Set<String> documented = namesIn(docs);
        assertThat(documented).containsAll(named);
        for (String name : documented) {
            assertThat(exported).as("%s is documented but not exported", name).contains(name);
        }
    }

    /** Metric names (without _bucket, _count, _sum) used in {@code text}. */
    private static Set<String> namesIn(String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = METRIC.matcher(text);
        while (m.find()) {
            out.add(m.group(1).replaceAll("_(bucket|count|sum)$", ""));
        }
        return out;
    }

    private static void collectExprs(JsonElement e, List<String> out) {
        if (e.isJsonObject()) {
            for (var entry : e.getAsJsonObject().entrySet()) {
                if (entry.getKey().equals("expr")) {
                    out.add(entry.getValue().getAsString());
                } else {
                    collectExprs(entry.getValue(), out);
                }
            }
        } else if (e.isJsonArray()) {
            e.getAsJsonArray().forEach(x -> collectExprs(x, out));
        }
    }

    private static long count(String scrape, String series) {
        return scrape.lines()
                .filter(l -> l.startsWith(series + " "))
                .mapToLong(MetricsIT::value)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + series + " in /metrics"));
    }

    private static long value(String line) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
    }

    private static String scrape() throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.adminPort() + "/metrics"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
