package dev.tenure.jdbc;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The database failed (connection, timeout, deadlock, constraint, commit): the fenced write did not
 * happen, or, if the commit itself failed, its outcome is unknown. Never a stale token: that is
 * {@link dev.tenure.client.StaleTokenException}.
 */
public class FenceSqlException extends RuntimeException {
    public FenceSqlException(String message, SQLException cause) {
        super(message + ": " + cause.getMessage(), cause);
    }

    public FenceSqlException(String message) {
        super(message);
    }

    /** The SQLState of the database's error, null if there is none. */
    public @Nullable String sqlState() {
        return getCause() instanceof SQLException e ? e.getSQLState() : null;
    }
}
