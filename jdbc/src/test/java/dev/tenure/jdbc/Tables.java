package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** Small SQL helpers for tests: fresh table names, reads, autocommit statements. */
final class Tables {
    private static final AtomicInteger NAMES = new AtomicInteger();

    private Tables() {}

    /** A table name no other test uses, so tests need no cleanup. */
    static String fresh(String prefix) {
        return prefix + "_" + NAMES.incrementAndGet();
    }

    static void execute(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement(sql)) {
            s.executeUpdate();
        }
    }

    static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement(sql);
                ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static OptionalLong storedToken(DataSource ds, JdbcFence fence, String resource) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT token FROM " + fence.table() + " WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /** The lock a resource's fence row belongs to; empty if it has no row or its row no lock yet. */
    static Optional<String> storedLock(DataSource ds, JdbcFence fence, String resource) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s =
                        c.prepareStatement("SELECT lock_name FROM " + fence.table() + " WHERE resource = ?")) {
            s.setString(1, resource);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
            }
        }
    }

    static void insert(Connection c, String table, String id, long token) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("INSERT INTO " + table + " (id, token) VALUES (?, ?)")) {
            s.setString(1, id);
            s.setLong(2, token);
            s.executeUpdate();
        }
    }
}
