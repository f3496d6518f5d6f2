package dev.tenure.lab.store;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The naive baseline's storage: it takes every write and checks nothing, as a store that is not
 * given a token must. The token a naive writer sends is the lab's bookkeeping only.
 */
public final class PlainBackend implements Backend {
    private final Map<String, String> values = new TreeMap<>();

    @Override
    public String name() {
        return "plain";
    }

    @Override
    public synchronized Result write(String resource, String lock, long token, String value) {
        values.put(resource, value);
        return Result.ACCEPTED;
    }

    @Override
    public synchronized Optional<String> read(String resource) {
        return Optional.ofNullable(values.get(resource));
    }

    @Override
    public void close() {}
}
