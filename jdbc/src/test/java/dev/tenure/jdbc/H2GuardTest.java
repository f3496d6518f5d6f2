package dev.tenure.jdbc;

/** {@link GuardContract} on in-memory H2. */
class H2GuardTest extends GuardContract {
    @Override
    TestDatabase open() {
        return new H2Database();
    }
}
