package dev.tenure.jdbc;

/** {@link ForgedTokenContract} on in-memory H2. */
class H2ForgedTokenTest extends ForgedTokenContract {
    @Override
    TestDatabase open() {
        return new H2Database();
    }
}
