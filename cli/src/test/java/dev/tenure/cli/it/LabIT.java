package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.tenure.lab.process.NetNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `tenure lab all` as a user runs it, at a small time scale: every scenario's naive run must
 * break at least one checked property (the fault landed) and Tenure's none. The lab starts its
 * own 3-node cluster, naive lock servers and worker processes; their histories stay in the temp
 * directory for a failed run's forensics.
 *
 * <p>A run that could not complete (a worker never reached the point where the fault lands,
 * e.g. a fresh JVM's first session lost to CPU starvation on 2 cores) is an experiment that did
 * not happen, not a result: that scenario alone is run once more, and the retry is printed. A
 * violation is never retried.
 */
class LabIT {

    private static final List<String> SCENARIOS = List.of(
            "holder-crash", "long-work-expiry", "gc-pause", "partitioned-holder", "stale-unlock-retry", "quorum-loss");

    @TempDir
    Path dir;

    @Test
    void everyScenarioBreaksTheNaiveLockAndNotTenure() throws Exception {
        List<JsonObject> rows = lab("all", dir.resolve("all"));
        assertThat(rows)
                .as("one row per scenario")
                .extracting(r -> r.get("scenario").getAsString())
                .containsExactlyElementsOf(SCENARIOS);
        for (JsonObject first : rows) {
            JsonObject row = first;
            if (incomplete(row)) {
                String scenario = row.get("scenario").getAsString();
                System.out.println("LabIT: " + scenario + " did not complete, running it once more: " + row);
                List<JsonObject> retry = lab(scenario, dir.resolve("retry-" + scenario));
                assertThat(retry).as("one row for %s", scenario).hasSize(1);
                row = retry.get(0);
            }
            assertThat(incomplete(row))
                    .as("%s: both runs completed: %s", row.get("scenario"), row)
                    .isFalse();
            assertThat(row.get("naive_violations").getAsInt())
                    .as(
                            "%s: the naive run must show the failure (else the fault did not land): %s",
                            row.get("scenario"), row)
                    .isGreaterThanOrEqualTo(1);
            assertThat(row.get("tenure_violations").getAsInt())
                    .as("%s: Tenure must break nothing: %s", row.get("scenario"), row)
                    .isZero();
            assertThat(row.get("faults").getAsInt())
                    .as("%s: a fault injected in each run: %s", row.get("scenario"), row)
                    .isGreaterThanOrEqualTo(2);
        }
    }

    /**
     * A short randomized run: the seed's schedule is printed in full, faults land (with root, ip
     * and nft, as in CI, partitions between nodes among them), the workers make progress through
     * them, and the history breaks no property.
     */
    @Test
    void aShortRandomRunBreaksNothing() throws Exception {
        Path out = dir.resolve("random");
        try (var lab = TenureCli.start(
                List.of("lab", "random", "--seed", "11", "--duration", "45s", "--json", "--dir", out.toString()))) {
            int code = lab.waitFor(Duration.ofMinutes(10));
            assertThat(lab.output()).as("the schedule is printed").contains("lab: random:   +3.0s");
            if (NetNamespace.missingTools().isEmpty()) {
                // Where namespaces can be made (CI: root, ip, nft), nodes are partitioned from each other.
                assertThat(lab.output())
                        .as("partitions between nodes land")
                        .contains("partitions between nodes on")
                        .containsPattern("healed: .* [1-9][0-9]* packets dropped");
            }
            JsonObject row = lab.stdout.stream()
                    .filter(l -> l.startsWith("{"))
                    .map(l -> JsonParser.parseString(l).getAsJsonObject())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no result row; output:\n" + lab.output()));
            assertThat(code).as("exit code; output:\n%s", lab.output()).isZero();
            assertThat(row.get("tenure_violations").getAsInt()).as("%s", row).isZero();
            assertThat(row.get("faults").getAsInt())
                    .as("faults that landed: %s", row)
                    .isGreaterThanOrEqualTo(4);
            assertThat(row.get("ops").getAsLong()).as("operations: %s", row).isGreaterThan(20);
            assertThat(Files.readAllLines(out.resolve("random/tenure/history.jsonl")))
                    .as("the history is saved")
                    .isNotEmpty();
        }
    }

    /**
     * Every member SIGTERMed and restarted in turn under load: no grant lost (the long holder's
     * one lease included), no property broken, the leader restarted last, and the longest gap
     * between grants reported.
     */
    @Test
    void aRollingRestartLosesNoGrant() throws Exception {
        Path out = dir.resolve("rolling");
        try (var lab = TenureCli.start(
                List.of("lab", "rolling-restart", "--scale", "4", "--seed", "3", "--json", "--dir", out.toString()))) {
            int code = lab.waitFor(Duration.ofMinutes(10));
            JsonObject row = lab.stdout.stream()
                    .filter(l -> l.startsWith("{"))
                    .map(l -> JsonParser.parseString(l).getAsJsonObject())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no result row; output:\n" + lab.output()));
            assertThat(code).as("exit code; output:\n%s", lab.output()).isZero();
            assertThat(row.get("tenure_violations").getAsInt()).as("%s", row).isZero();
            assertThat(row.get("faults").getAsInt())
                    .as("one restart per member: %s", row)
                    .isEqualTo(3);
            assertThat(row.getAsJsonArray("restarted_nodes").size())
                    .as("%s", row)
                    .isEqualTo(3);
            assertThat(lab.output()).as("the leader goes last").containsPattern("SIGTERM node [0-2] \\(the leader\\)");
            assertThat(row.get("longest_grant_gap_ms").getAsLong())
                    .as("the gap is measured: %s", row)
                    .isPositive();
        }
    }

    private static boolean incomplete(JsonObject row) {
        return row.has("naive_error") || row.has("tenure_error");
    }

    /** Runs `tenure lab WHAT` and returns its JSON rows; exit 0, or 8 for an incomplete run. */
    private static List<JsonObject> lab(String what, Path out) throws Exception {
        // Scale 2 (TTLs of 4 s and more): at 4 a 2 s TTL on a 2-core machine sometimes lost a
        // holder's lease to CPU starvation before the fault was injected.
        String scale = System.getProperty("tenure.lab.scale", "2");
        try (var lab = TenureCli.start(
                List.of("lab", what, "--scale", scale, "--seed", "7", "--json", "--dir", out.toString()))) {
            int code = lab.waitFor(Duration.ofMinutes(20));
            List<JsonObject> rows = new ArrayList<>();
            for (String line : lab.stdout) {
                if (line.startsWith("{")) {
                    rows.add(JsonParser.parseString(line).getAsJsonObject());
                }
            }
            boolean anyIncomplete = rows.stream().anyMatch(LabIT::incomplete);
            assertThat(code)
                    .as("exit code of tenure lab %s; output:\n%s%s", what, lab.output(), notLanded(out, rows))
                    .isEqualTo(anyIncomplete ? 8 : 0);
            return rows;
        }
    }

    /** The naive history of every scenario whose naive run broke nothing: why the fault missed. */
    private static String notLanded(Path out, List<JsonObject> rows) throws IOException {
        StringBuilder b = new StringBuilder();
        for (JsonObject row : rows) {
            String scenario = row.get("scenario").getAsString();
            Path history = out.resolve(scenario).resolve("naive").resolve("history.jsonl");
            if (!incomplete(row) && row.get("naive_violations").getAsInt() == 0 && Files.exists(history)) {
                b.append("\n").append(scenario).append(": the naive run broke nothing; its history:\n");
                b.append(Files.readString(history));
            }
        }
        return b.toString();
    }
}
