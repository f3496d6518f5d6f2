package dev.tenure.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** One database the fence's tests run against: the same test bodies, several databases. */
interface TestDatabase extends AutoCloseable {

    String name();

    DataSource dataSource();

    /** How many sessions are waiting for a lock right now (to see that a guard is blocked). */
    int lockWaiters(Connection c) throws SQLException;

    /**
     * As {@link #lockWaiters}, counting also statements waiting for a concurrent insert of the same
     * key to end, where the database reports those apart.
     */
    default int insertOrLockWaiters(Connection c) throws SQLException {
        return lockWaiters(c);
    }

    /** Column type of a generated key, whose values follow insertion order. */
    default String identityColumn() {
        return "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY";
    }

    @Override
    void close();
}
