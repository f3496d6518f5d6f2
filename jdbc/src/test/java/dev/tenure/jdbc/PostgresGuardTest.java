package dev.tenure.jdbc;

/** {@link GuardContract} on a real PostgreSQL 17 (embedded, started for this class). */
class PostgresGuardTest extends GuardContract {
    @Override
    TestDatabase open() {
        return new PostgresDatabase();
    }
}
