package dev.tenure.jdbc;

/** {@link ForgedTokenContract} on a real PostgreSQL 17 (embedded, started for this class). */
class PostgresForgedTokenTest extends ForgedTokenContract {
    @Override
    TestDatabase open() {
        return new PostgresDatabase();
    }
}
