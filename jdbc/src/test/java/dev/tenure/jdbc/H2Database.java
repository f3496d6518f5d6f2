package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** An in-memory H2 (MVStore, READ COMMITTED by default) that lives until {@link #close()}. */
final class H2Database implements TestDatabase {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private final JdbcDataSource dataSource = new JdbcDataSource();
    private final Connection keepAlive;

    H2Database() {
        // A lock wait longer than a test's slowest transaction: a timeout would be a test failure,
        // not a fence outcome.
        dataSource.setURL("jdbc:h2:mem:fence" + NAMES.incrementAndGet() + ";LOCK_TIMEOUT=20000");
        try {
            keepAlive = dataSource.getConnection(); // the database lives while one connection does
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String name() {
        return "H2";
    }

    @Override
    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public int lockWaiters(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(
                        "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** H2 waits for an uncommitted insert of the same key without naming a blocker. */
    @Override
    public int insertOrLockWaiters(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS"
                        + " WHERE BLOCKER_ID IS NOT NULL OR UPPER(EXECUTING_STATEMENT) LIKE 'INSERT INTO FENCE%'");
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    @Override
    public void close() {
        try {
            keepAlive.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
