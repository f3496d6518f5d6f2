package dev.tenure.server.fatal;

/**
 * What a node does once it can no longer serve. A {@code tenure server} process ends
 * ({@link Fatal#exit}); a node embedded in a test records it, so the test can say so.
 */
@FunctionalInterface
public interface FatalHandler {
    /** {@code what} names what stopped and where, in one line, for the operator. */
    void fatal(FatalCause cause, String what);
}
