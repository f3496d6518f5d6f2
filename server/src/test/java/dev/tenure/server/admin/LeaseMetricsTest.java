package dev.tenure.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Change;
import dev.tenure.core.ElectionValue;
import dev.tenure.core.TenureEnd;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseMetricsTest {

    private long revision;

    private Change granted(String lock, long token, long previousToken, TenureEnd previousEnd, long atMs) {
        return new Change(
                ++revision,
                Change.Kind.GRANTED,
                lock,
                1,
                token,
                previousEnd,
                previousToken,
                false,
                1,
                0,
                atMs,
                ElectionValue.NONE);
    }

    private Change ended(String lock, long token, TenureEnd end, long atMs) {
        return new Change(++revision, Change.Kind.ENDED, lock, 1, token, end, 0, false, 0, 0, atMs, ElectionValue.NONE);
    }

    @Test
    void grantsEndsHoldAndHandoffFollowTheAppliedChanges() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LeaseMetrics metrics = new LeaseMetrics(registry);
        // a: granted at 0, released at 2,000 (held 2 s); b waits and is granted at 2,000 (handoff
        // 0), expires at 12,000 (held 10 s); c is granted at 12,500 (handoff 0.5 s) and revoked.
        metrics.applied(List.of(granted("orders", 1, 0, TenureEnd.NONE, 0)));
        metrics.applied(List.of(
                ended("orders", 1, TenureEnd.RELEASED, 2_000), granted("orders", 2, 1, TenureEnd.RELEASED, 2_000)));
        metrics.applied(List.of(ended("orders", 2, TenureEnd.EXPIRED, 12_000)));
        metrics.applied(List.of(granted("orders", 3, 2, TenureEnd.EXPIRED, 12_500)));
        metrics.applied(List.of(ended("orders", 3, TenureEnd.REVOKED, 12_600)));
        // A lease granted before the replica's start point ends unmeasured, but counted.
        metrics.restarted();
        metrics.applied(List.of(ended("jobs", 9, TenureEnd.DISCONNECTED, 20_000)));
        metrics.newTerm(2);
        metrics.snapshotWritten(4_096, 2_000_000);

        String scrape = registry.scrape();
        assertThat(scrape)
                .contains("tenure_grants_total 3.0")
                .contains("tenure_lease_ends_total{reason=\"released\"} 1.0")
                .contains("tenure_lease_ends_total{reason=\"expired\"} 1.0")
                .contains("tenure_lease_ends_total{reason=\"revoked\"} 1.0")
                .contains("tenure_lease_ends_total{reason=\"disconnected\"} 1.0")
                .contains("tenure_hold_seconds_count 3")
                .contains("tenure_hold_seconds_sum 12.1")
                .contains("tenure_hold_seconds_bucket{le=\"1.0\"} 1")
                .contains("tenure_hold_seconds_bucket{le=\"5.0\"} 2")
                .contains("tenure_hold_seconds_bucket{le=\"10.0\"} 3")
                .contains("tenure_handoff_seconds_count 2")
                .contains("tenure_handoff_seconds_sum 0.5")
                .contains("tenure_handoff_seconds_bucket{le=\"0.001\"} 1")
                .contains("tenure_handoff_seconds_bucket{le=\"0.5\"} 2")
                .contains("tenure_leader_changes_total 1.0")
                .contains("tenure_snapshot_write_seconds_count 1")
                .contains("tenure_snapshot_size_bytes_bucket{le=\"16384.0\"} 1")
                .doesNotContain("orders")
                .doesNotContain("jobs");
        registry.close();
    }
}
