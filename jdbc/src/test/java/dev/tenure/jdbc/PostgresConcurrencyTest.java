package dev.tenure.jdbc;

/** {@link ConcurrencyContract} on a real PostgreSQL 17 (embedded, started for this class). */
class PostgresConcurrencyTest extends ConcurrencyContract {
    @Override
    TestDatabase open() {
        return new PostgresDatabase();
    }
}
