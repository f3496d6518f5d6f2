package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The SQL databases the fence knows. They differ in one step only: how a first write inserts the
 * resource's row without breaking the caller's transaction when a concurrent writer inserted it
 * first.
 */
public enum Dialect {
    /**
     * {@code INSERT ... ON CONFLICT DO NOTHING}: a unique violation in PostgreSQL aborts the whole
     * transaction (every later statement fails until rollback), so the conflict must not be raised
     * at all.
     */
    POSTGRESQL,
    /**
     * A plain {@code INSERT}; H2 undoes only the failed statement on a unique violation and the
     * transaction goes on, so the fence catches SQLState 23505.
     */
    H2;

    /** From the driver's product name, which both drivers answer without a round trip. */
    static Dialect detect(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new IllegalStateException("the JDBC fence supports PostgreSQL and H2, not '" + product
                + "'; JdbcFence.builder().dialect(...) forces one for a compatible database");
    }
}
