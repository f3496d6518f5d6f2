package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.core.Limits;
import dev.tenure.core.Usage;
import dev.tenure.server.guard.MemoryBudget;
import io.grpc.Status;
import org.junit.jupiter.api.Test;

class NodeMetricsTest {

    @Test
    void staleWritesAreCountedByTargetKindWithoutLockOrKey() {
        try (NodeMetrics metrics = new NodeMetrics()) {
            metrics.staleWrite("release");
            metrics.staleWrite("release");
            metrics.staleWrite("kv:orders-secret-key");
            metrics.staleWrite("checkpoint");

            String scrape = metrics.scrape();
            assertThat(scrape)
                    .contains("tenure_stale_writes_rejected_total{target=\"release\"} 2.0")
                    .contains("tenure_stale_writes_rejected_total{target=\"kv\"} 1.0")
                    .contains("tenure_stale_writes_rejected_total{target=\"checkpoint\"} 1.0")
                    .doesNotContain("orders-secret-key");
            assertThat(scrape.lines().filter(l -> l.startsWith("tenure_stale_writes_rejected_total{")))
                    .hasSize(3);
        }
    }

    @Test
    void acquireCommitAndCallLatencyAreHistogramsWithBuckets() {
        try (NodeMetrics metrics = new NodeMetrics()) {
            metrics.acquireAnswered("GRANTED", 3_000_000); // 3 ms
            metrics.acquireAnswered("GRANTED", 700_000_000); // 0.7 s
            metrics.acquireAnswered("HELD", 200_000);
            metrics.committed(1_500_000);
            metrics.carriedCall("Acquire", Status.Code.OK, 4_000_000);
            metrics.sessionReset();
            metrics.sessionResumed();
            metrics.sessionResumed();

            String scrape = metrics.scrape();
            assertThat(scrape)
                    .contains("tenure_acquire_wait_seconds_bucket{result=\"GRANTED\",le=\"0.001\"} 0")
                    .contains("tenure_acquire_wait_seconds_bucket{result=\"GRANTED\",le=\"0.005\"} 1")
                    .contains("tenure_acquire_wait_seconds_bucket{result=\"GRANTED\",le=\"1.0\"} 2")
                    .contains("tenure_acquire_wait_seconds_bucket{result=\"GRANTED\",le=\"+Inf\"} 2")
                    .contains("tenure_acquire_wait_seconds_count{result=\"GRANTED\"} 2")
                    .contains("tenure_acquire_wait_seconds_count{result=\"HELD\"} 1")
                    .contains("tenure_commit_seconds_bucket{le=\"0.002\"} 1")
                    .contains("tenure_commit_seconds_bucket{le=\"0.001\"} 0")
                    .containsPattern("grpc_server_processing_duration_seconds_bucket\\{method=\"Acquire\"[^}]*"
                            + "le=\"0\\.005\"} 1")
                    .contains("tenure_session_resets_total 1.0")
                    .contains("tenure_session_resumes_total 2.0");
        }
    }

    @Test
    void memoryGaugesNameEveryLimitItsUseAndTheEstimateAndOutliveACollection() {
        try (NodeMetrics metrics = new NodeMetrics()) {
            Limits limits = Limits.defaults();
            MemoryBudget.Estimate estimate = MemoryBudget.of(limits, 357_957_632L, 512L << 20);
            String[] refusal = {null};
            metrics.memory(estimate, () -> new Usage(3, 2, 1, 0, 5, 4_096, 7), () -> refusal[0], limits);
            // The gauges keep their suppliers: lambdas that nothing else refers to.
            System.gc();
            String scrape = metrics.scrape();
            assertThat(scrape)
                    .contains("tenure_limit{name=\"kvBytesMax\"} " + (double) limits.kvBytesMax())
                    .contains("tenure_limit{name=\"kvBytesPerPrincipalMax\"} "
                            + (double) limits.principal().kvBytesMax())
                    .contains("tenure_limit_used{name=\"kvBytesMax\"} 4096.0")
                    .contains("tenure_limit_used{name=\"checkpointTotalBytesMax\"} 7.0")
                    .contains("tenure_limit_used{name=\"locksMax\"} 2.0")
                    .contains("tenure_memory_allowed_bytes " + (double) estimate.allowedBytes())
                    .contains("tenure_memory_estimate_bytes{kind=\"kv\"}")
                    .contains("tenure_heap_guard_refusing 0.0")
                    .doesNotContain("NaN");
            assertThat(scrape.lines().filter(l -> l.startsWith("tenure_limit{")))
                    .hasSize(Limits.names().size());
            refusal[0] = "heap: nearly full";
            assertThat(metrics.scrape()).contains("tenure_heap_guard_refusing 1.0");
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
