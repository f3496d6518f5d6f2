package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.server.admin.NodeMetrics;
import org.junit.jupiter.api.Test;

class NodeMetricsTest {

    @Test
    void staleWriteSeriesAreBoundedAndTheRestCountedTogether() {
        try (NodeMetrics metrics = new NodeMetrics()) {
            for (int i = 0; i < NodeMetrics.STALE_SERIES_MAX; i++) {
                metrics.staleWrite("lock-" + i, "release");
            }
            metrics.staleWrite("lock-0", "release");
            metrics.staleWrite("one-too-many", "kv:a");
            metrics.staleWrite("and-another", "checkpoint");

            String scrape = metrics.scrape();
            assertThat(scrape)
                    .contains("tenure_stale_writes_rejected_total{lock=\"lock-0\",target=\"release\"} 2.0")
                    .contains("tenure_stale_writes_rejected_total{lock=\"lock-999\",target=\"release\"} 1.0")
                    .contains("tenure_stale_writes_rejected_total{lock=\"_other\",target=\"_other\"} 2.0")
                    .doesNotContain("one-too-many")
                    .doesNotContain("and-another");
            assertThat(scrape.lines().filter(l -> l.startsWith("tenure_stale_writes_rejected_total{")))
                    .hasSize(NodeMetrics.STALE_SERIES_MAX + 1);
        }
    }

    @Test
    void clusterGaugesReadTheLastObservedStatus() {
        try (NodeMetrics metrics = new NodeMetrics()) {
            assertThat(metrics.scrape()).contains("tenure_health_ok 0.0");
            metrics.observe(ServerStatusResponse.newBuilder()
                    .setHealth("ok")
                    .setNodeId(2)
                    .setLeaderId(2)
                    .setSessions(7)
                    .setHeld(3)
                    .setLastToken(41)
                    .setNowMs(1_000)
                    .build());
            assertThat(metrics.scrape())
                    .contains("tenure_health_ok 1.0")
                    .contains("tenure_leader 1.0")
                    .contains("tenure_sessions 7.0")
                    .contains("tenure_locks_held 3.0")
                    .contains("tenure_token_last 41.0");
            // Quorum lost: the log did not answer, so the counts are unknown and keep their value.
            metrics.observe(ServerStatusResponse.newBuilder()
                    .setHealth("no quorum")
                    .setNodeId(2)
                    .setLeaderId(-1)
                    .build());
            assertThat(metrics.scrape())
                    .contains("tenure_health_ok 0.0")
                    .contains("tenure_leader 0.0")
                    .contains("tenure_leader_id -1.0")
                    .contains("tenure_sessions 7.0")
                    .contains("tenure_token_last 41.0");
        }
    }
}
