package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/** One guarded transaction on its own connection: guard, work, commit; roll back on any failure. */
final class FencedTransaction {
    private FencedTransaction() {}

    /**
     * {@code token} is read after the transaction has begun and right before the guard, so the
     * lease's check ({@code lease.fence}) is as close to the fence's as it can be.
     */
    static void run(
            DataSource dataSource,
            JdbcFence fence,
            String resource,
            String lock,
            LongSupplier token,
            JdbcFence.Work work) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(work, "work");
        JdbcFence.checkResource(resource);
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                fence.guard(c, resource, lock, token.getAsLong());
                work.run(c);
                c.commit();
            } catch (SQLException | RuntimeException | Error e) {
                rollback(c, e);
                throw e;
            } finally {
                restore(c, autoCommit);
            }
        } catch (SQLException e) {
            throw new FenceSqlException("fenced write to '" + resource + "' failed", e);
        }
    }

    private static void rollback(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    /** A pooled connection goes back as it came; a failure here must not hide the outcome. */
    private static void restore(Connection c, boolean autoCommit) {
        try {
            c.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // The pool validates or discards the connection; the write's outcome is already decided.
        }
    }
}
