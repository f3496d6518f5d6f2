package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.jdbc.JdbcFence;
import dev.tenure.jdbc.TenureTokenVerifier;
import dev.tenure.jdbc.UnverifiedTokenException;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JDBC fence with token verification against a real server process and an H2 database. */
class JdbcFenceIT {

    @TempDir
    Path data;

    @Test
    void leaseWritesThroughAVerifyingFenceAndAForgedTokenIsRefused() throws Exception {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:fence-it;DB_CLOSE_DELAY=-1");
        String lock = "jdbc-it";
        try (ServerProcess server = new ServerProcess(data).start();
                TenureClient client =
                        TenureClient.builder().endpoints(server.endpoint()).build();
                Session session = client.openSession()) {
            TenureTokenVerifier verifier = new TenureTokenVerifier(client);
            JdbcFence fence = JdbcFence.builder().verifier(verifier).build();
            try (Connection c = h2.getConnection()) {
                fence.createTable(c);
            }
            long token;
            try (Lease lease = session.acquire(lock, Duration.ofSeconds(5))) {
                token = lease.token();
                assertThat(verifier.isCurrentGrant(lock, token)).isTrue();
                assertThat(verifier.isCurrentGrant(lock, token + 1_000_000)).isFalse();
                fence.write(h2, lock, lease, Duration.ofMillis(500), c -> {});
            }
            assertThat(verifier.isCurrentGrant(lock, token)).as("released").isFalse();
            // A token above the stored one that Tenure never granted for the lock cannot brick it.
            assertThatThrownBy(() -> fence.write(h2, lock, lock, token + 1, c -> {}))
                    .isInstanceOf(UnverifiedTokenException.class);
        }
    }
}
