package dev.tenure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Against a real Tenure server, when there is one: {@code TENURE_TEST_ENDPOINTS=127.0.0.1:7420}
 * (e.g. after {@code bin/tenure server}). Without it the test is reported as skipped, with the
 * reason; {@link ScriptedTenureTest} covers the same classes against a scripted gateway every run.
 */
class RealTenureTest {
    private static final String ENDPOINTS = System.getenv("TENURE_TEST_ENDPOINTS");

    @Test
    void leaseWritesThroughAVerifyingFenceAndAReleasedTokenIsRefused() throws SQLException {
        assumeTrue(
                ENDPOINTS != null && !ENDPOINTS.isBlank(),
                "no Tenure server: set TENURE_TEST_ENDPOINTS=host:port to run this test");
        String lock = "tenure-jdbc-test-" + System.nanoTime();
        H2Database h2 = new H2Database();
        try (TenureClient client = TenureClient.builder().endpoints(ENDPOINTS).build();
                Session session = client.openSession()) {
            TenureTokenVerifier verifier = new TenureTokenVerifier(client);
            JdbcFence fence = JdbcFence.builder().verifier(verifier).build();
            try (Connection c = h2.dataSource().getConnection()) {
                fence.createTable(c);
            }
            long token;
            try (Lease lease = session.acquire(lock, Duration.ofSeconds(5))) {
                token = lease.token();
                assertThat(verifier.isCurrentGrant(lock, token)).isTrue();
                assertThat(verifier.isCurrentGrant(lock, token + 1_000_000)).isFalse();
                fence.write(h2.dataSource(), lock, lease, Duration.ofSeconds(1), c -> {});
            }
            assertThat(verifier.isCurrentGrant(lock, token)).as("released").isFalse();
            assertThatThrownBy(() -> fence.write(h2.dataSource(), lock, lock, token + 1, c -> {}))
                    .isInstanceOf(UnverifiedTokenException.class);
        } finally {
            h2.close();
        }
    }
}
