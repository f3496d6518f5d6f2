package dev.tenure.server.fatal;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@link FatalHandler} of a node in a test JVM: what would have ended its process is kept
 * (and printed as {@code tenure server} would print it), so the test can say what it expected.
 */
public final class RecordedFatals implements FatalHandler {
    private final List<String> fatals = new ArrayList<>();

    @Override
    public synchronized void fatal(FatalCause cause, String what) {
        String line = Fatal.line(cause, what);
        System.err.println(line + " [recorded by the test; the process goes on]");
        fatals.add(line);
    }

    /** Every fatal line so far, in order. */
    public synchronized List<String> lines() {
        return List.copyOf(fatals);
    }
}
