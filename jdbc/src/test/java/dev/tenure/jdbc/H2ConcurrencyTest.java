package dev.tenure.jdbc;

/** {@link ConcurrencyContract} on in-memory H2. */
class H2ConcurrencyTest extends ConcurrencyContract {
    @Override
    TestDatabase open() {
        return new H2Database();
    }
}
