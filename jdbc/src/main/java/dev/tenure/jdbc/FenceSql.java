package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * The fence's statements for one table and one dialect. Portable SQL except the insert (see
 * {@link Dialect}). Each method is one statement in the caller's transaction; the safety argument
 * for using them in sequence is in {@link JdbcFence}.
 */
final class FenceSql {
    /** SQLState of a unique (primary key) violation, in PostgreSQL and H2 alike. */
    static final String UNIQUE_VIOLATION = "23505";

    private final Dialect dialect;
    private final String create;
    private final String raise;
    private final String read;
    private final String insert;

    FenceSql(String table, Dialect dialect) {
        this.dialect = dialect;
        this.create = ddl(table);
        this.raise = "UPDATE " + table + " SET token = ?, updated_at = CURRENT_TIMESTAMP"
                + " WHERE resource = ? AND token <= ? AND token >= ?";
        this.read = "SELECT token FROM " + table + " WHERE resource = ?";
        String insertRow = "INSERT INTO " + table + " (resource, token, updated_at) VALUES (?, ?, CURRENT_TIMESTAMP)";
        this.insert = dialect == Dialect.POSTGRESQL ? insertRow + " ON CONFLICT (resource) DO NOTHING" : insertRow;
    }

    /** The table: one row per resource, holding the highest token accepted for it. */
    static String ddl(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + JdbcFence.RESOURCE_CHARS_MAX
                + ") PRIMARY KEY, token BIGINT NOT NULL, updated_at TIMESTAMP)";
    }

    void create(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(create)) {
            s.executeUpdate();
        }
    }

    /**
     * Sets the resource's token to {@code token} if the stored one is in {@code [floor, token]};
     * returns whether it did. When it did, the row stays locked until the transaction ends.
     */
    boolean raise(Connection c, String resource, long token, long floor) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(raise)) {
            s.setLong(1, token);
            s.setString(2, resource);
            s.setLong(3, token);
            s.setLong(4, floor);
            return s.executeUpdate() == 1;
        }
    }

    /** The highest token accepted for the resource, as last committed; empty if it has no row. */
    OptionalLong read(Connection c, String resource) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(read)) {
            s.setString(1, resource);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        }
    }

    /**
     * Inserts the resource's first row; returns false, with the transaction still usable, if a
     * concurrent transaction inserted it first.
     */
    boolean insert(Connection c, String resource, long token) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(insert)) {
            s.setString(1, resource);
            s.setLong(2, token);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect == Dialect.H2 && UNIQUE_VIOLATION.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }
}
