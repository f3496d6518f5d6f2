package dev.tenure.lab.store;

import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.jdbc.JdbcFence;
import dev.tenure.jdbc.TenureTokenVerifier;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import org.h2.jdbcx.JdbcDataSource;

/**
 * A SQL table fenced by {@link JdbcFence} in an H2 file database: the write and the fence's
 * conditional update commit in one transaction, so a stale token leaves nothing behind. The fence
 * verifies every token it has not seen with Tenure (reached directly, never through a worker's
 * fault proxy), as a fence should by default.
 */
public final class JdbcBackend implements Backend {
    private final JdbcDataSource dataSource = new JdbcDataSource();
    private final TenureClient client;
    private final JdbcFence fence;

    public JdbcBackend(Path dir, String endpoints, Duration requestTimeout) {
        this.client = TenureClient.builder()
                .endpoints(endpoints)
                .requestTimeout(requestTimeout)
                .clientName("tenure lab jdbc verifier")
                .build();
        this.fence =
                JdbcFence.builder().verifier(new TenureTokenVerifier(client)).build();
        dataSource.setURL("jdbc:h2:file:" + dir.toAbsolutePath().resolve("store") + ";DB_CLOSE_DELAY=-1");
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            fence.createTable(c);
            s.execute("CREATE TABLE IF NOT EXISTS lab_value"
                    + " (resource VARCHAR(512) PRIMARY KEY, v VARCHAR(1024) NOT NULL, token BIGINT NOT NULL)");
        } catch (SQLException e) {
            client.close();
            throw new IllegalStateException("cannot set up the H2 store in " + dir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return "jdbc-h2";
    }

    @Override
    public Result write(String resource, String lock, long token, String value) {
        try {
            fence.write(dataSource, resource, lock, token, c -> {
                try (PreparedStatement s = c.prepareStatement(
                        "MERGE INTO lab_value (resource, v, token) KEY (resource) VALUES (?, ?, ?)")) {
                    s.setString(1, resource);
                    s.setString(2, value);
                    s.setLong(3, token);
                    s.executeUpdate();
                }
            });
            return Result.ACCEPTED;
        } catch (StaleTokenException e) {
            return Result.rejected(e.currentToken());
        }
    }

    @Override
    public Optional<String> read(String resource) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT v FROM lab_value WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet r = s.executeQuery()) {
                return r.next() ? Optional.of(r.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read '" + resource + "' from H2: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("SHUTDOWN");
        } catch (SQLException e) {
            // closing anyway
        } finally {
            client.close();
        }
    }
}
