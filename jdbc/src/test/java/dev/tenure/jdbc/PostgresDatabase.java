package dev.tenure.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** A real PostgreSQL 17 started from Maven artifacts for one test class, stopped by close(). */
final class PostgresDatabase implements TestDatabase {
    private final EmbeddedPostgres postgres;

    PostgresDatabase() {
        try {
            postgres = EmbeddedPostgres.builder().start();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start", e);
        }
    }

    @Override
    public String name() {
        return "PostgreSQL";
    }

    @Override
    public DataSource dataSource() {
        return postgres.getPostgresDatabase();
    }

    @Override
    public int lockWaiters(Connection c) throws SQLException {
        try (PreparedStatement s =
                        c.prepareStatement("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not stop cleanly", e);
        }
    }
}
