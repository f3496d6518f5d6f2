package dev.tenure.jdbc;

/** {@link OneLockPerResourceContract} on in-memory H2. */
class H2OneLockPerResourceTest extends OneLockPerResourceContract {
    @Override
    TestDatabase open() {
        return new H2Database();
    }
}
