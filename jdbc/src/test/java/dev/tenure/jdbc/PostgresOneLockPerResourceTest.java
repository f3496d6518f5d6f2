package dev.tenure.jdbc;

/** {@link OneLockPerResourceContract} on a real PostgreSQL 17 (embedded, started for this class). */
class PostgresOneLockPerResourceTest extends OneLockPerResourceContract {
    @Override
    TestDatabase open() {
        return new PostgresDatabase();
    }
}
