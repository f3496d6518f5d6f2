package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The fence's statements for one table and one dialect. Portable SQL except the insert (see
 * {@link Dialect}). Each method is one statement in the caller's transaction; the safety argument
 * for using them in sequence is in {@link JdbcFence}.
 */
final class FenceSql {
    /** SQLState of a unique (primary key) violation, in PostgreSQL and H2 alike. */
    static final String UNIQUE_VIOLATION = "23505";
    /** SQLStates of a column that does not exist: PostgreSQL's undefined_column, H2's (and ODBC's). */
    private static final String UNDEFINED_COLUMN_POSTGRESQL = "42703";

    private static final String UNDEFINED_COLUMN_H2 = "42S22";
    static final String LOCK_COLUMN = "lock_name";

    private final Dialect dialect;
    private final String table;
    private final String create;
    private final String raise;
    private final String read;
    private final String insert;
    private final String move;

    /** A resource's row: the highest token accepted for it and the lock it belongs to. */
    record Row(long token, String lock) {
        /** A row from before the lock column (null) belongs to the lock of its next admitted guard. */
        boolean belongsToAnother(String asked) {
            return lock != null && !lock.equals(asked);
        }
    }

    FenceSql(String table, Dialect dialect) {
        this.dialect = dialect;
        this.table = table;
        this.create = ddl(table);
        // The lock condition is part of the WHERE clause, so the databases' recheck after a
        // concurrent commit (see JdbcFence#settle) re-evaluates it too: a row claimed by another
        // lock meanwhile does not match.
        this.raise = "UPDATE " + table + " SET token = ?, " + LOCK_COLUMN + " = ?, updated_at = CURRENT_TIMESTAMP"
                + " WHERE resource = ? AND token <= ? AND token >= ? AND (" + LOCK_COLUMN + " = ? OR " + LOCK_COLUMN
                + " IS NULL)";
        this.read = "SELECT token, " + LOCK_COLUMN + " FROM " + table + " WHERE resource = ?";
        String insertRow = "INSERT INTO " + table + " (resource, token, " + LOCK_COLUMN
                + ", updated_at) VALUES (?, ?, ?, CURRENT_TIMESTAMP)";
        this.insert = dialect == Dialect.POSTGRESQL ? insertRow + " ON CONFLICT (resource) DO NOTHING" : insertRow;
        this.move = "UPDATE " + table + " SET " + LOCK_COLUMN + " = ?, updated_at = CURRENT_TIMESTAMP"
                + " WHERE resource = ? AND (" + LOCK_COLUMN + " = ? OR " + LOCK_COLUMN + " IS NULL)";
    }

    /** The table: one row per resource, holding the highest token accepted for it and its lock. */
    static String ddl(String table) {
        return "CREATE TABLE IF NOT EXISTS " + table + " (resource VARCHAR(" + JdbcFence.RESOURCE_CHARS_MAX
                + ") PRIMARY KEY, token BIGINT NOT NULL, " + LOCK_COLUMN + " VARCHAR(" + JdbcFence.LOCK_CHARS_MAX
                + "), updated_at TIMESTAMP)";
    }

    /** Adds the lock column to a table made by a release before it; rows already there keep NULL. */
    static String upgradeDdl(String table) {
        return "ALTER TABLE " + table + " ADD COLUMN " + LOCK_COLUMN + " VARCHAR(" + JdbcFence.LOCK_CHARS_MAX + ")";
    }

    /** Creates the table, or adds the lock column to a table of an earlier release. */
    void create(Connection c) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(create)) {
            s.executeUpdate();
        }
        // Looked up first rather than ALTER ... IF NOT EXISTS: an ALTER takes the table's exclusive
        // lock even when it changes nothing, and would make every fenced writer wait at each start.
        if (!hasLockColumn(c)) {
            try (PreparedStatement s = c.prepareStatement(upgradeDdl(table))) {
                s.executeUpdate();
            }
        }
    }

    /**
     * Whether the table has the lock column. Both databases fold unquoted identifiers (PostgreSQL
     * to lower case, H2 to upper), so the name is tried as given and in both cases; it is escaped,
     * since the metadata takes patterns in which '_' matches any character.
     */
    private boolean hasLockColumn(Connection c) throws SQLException {
        int dot = table.indexOf('.');
        String schema = dot < 0 ? null : table.substring(0, dot);
        String name = table.substring(dot + 1);
        DatabaseMetaData meta = c.getMetaData();
        String escape = meta.getSearchStringEscape();
        for (UnaryOperator<String> fold : List.<UnaryOperator<String>>of(
                s -> s, s -> s.toLowerCase(Locale.ROOT), s -> s.toUpperCase(Locale.ROOT))) {
            String schemaPattern = schema == null ? null : escaped(fold.apply(schema), escape);
            try (ResultSet rs = meta.getColumns(null, schemaPattern, escaped(fold.apply(name), escape), null)) {
                while (rs.next()) {
                    if (LOCK_COLUMN.equalsIgnoreCase(rs.getString("COLUMN_NAME"))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static String escaped(String identifier, String escape) {
        return escape == null || escape.isEmpty() ? identifier : identifier.replace("_", escape + "_");
    }

    /** Whether {@code e} says the table has no lock column: it was made by an earlier release. */
    static boolean missingLockColumn(SQLException e) {
        String state = e.getSQLState();
        return (UNDEFINED_COLUMN_POSTGRESQL.equals(state) || UNDEFINED_COLUMN_H2.equals(state))
                && String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains(LOCK_COLUMN);
    }

    /**
     * Sets the resource's token to {@code token} and records {@code lock} if the stored token is in
     * {@code [floor, token]} and the row belongs to {@code lock} (or to no lock yet); returns whether
     * it did. When it did, the row stays locked until the transaction ends.
     */
    boolean raise(Connection c, String resource, String lock, long token, long floor) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(raise)) {
            s.setLong(1, token);
            s.setString(2, lock);
            s.setString(3, resource);
            s.setLong(4, token);
            s.setLong(5, floor);
            s.setString(6, lock);
            return s.executeUpdate() == 1;
        }
    }

    /** The resource's row as last committed; empty if it has none. */
    Optional<Row> read(Connection c, String resource) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(read)) {
            s.setString(1, resource);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new Row(rs.getLong(1), rs.getString(2))) : Optional.empty();
            }
        }
    }

    /**
     * Inserts the resource's first row, belonging to {@code lock}; returns false, with the
     * transaction still usable, if a concurrent transaction inserted it first.
     */
    boolean insert(Connection c, String resource, String lock, long token) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(insert)) {
            s.setString(1, resource);
            s.setLong(2, token);
            s.setString(3, lock);
            return s.executeUpdate() == 1;
        } catch (SQLException e) {
            if (dialect == Dialect.H2 && UNIQUE_VIOLATION.equals(e.getSQLState())) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Gives the resource's row to {@code toLock} if it belongs to {@code fromLock} (or to no lock);
     * returns whether it did. The token stays: the mark never goes down.
     */
    boolean move(Connection c, String resource, String fromLock, String toLock) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(move)) {
            s.setString(1, toLock);
            s.setString(2, resource);
            s.setString(3, fromLock);
            return s.executeUpdate() == 1;
        }
    }
}
