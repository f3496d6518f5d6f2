package dev.tenure.client;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a {@link TenureClient#watch} follows: one name (the lock and the key of that name), or
 * every name under a prefix; from the current state, or after a revision. Immutable.
 */
public final class WatchRequest {
    private final String name;
    private final boolean prefix;
    private final OptionalLong fromRevision;

    private WatchRequest(String name, boolean prefix, OptionalLong fromRevision) {
        this.name = name;
        this.prefix = prefix;
        this.fromRevision = fromRevision;
    }

    /** The lock and the key named {@code name}. */
    public static WatchRequest name(String name) {
        if (Objects.requireNonNull(name, "name").isEmpty()) {
            throw new IllegalArgumentException("name must not be empty (watch every name with prefix(\"\"))");
        }
        return new WatchRequest(name, false, OptionalLong.empty());
    }

    /** Every lock and key whose name starts with {@code prefix} (empty: every name). */
    public static WatchRequest prefix(String prefix) {
        return new WatchRequest(Objects.requireNonNull(prefix, "prefix"), true, OptionalLong.empty());
    }

    /**
     * The changes after {@code revision} (a revision an earlier watch delivered), without the
     * current state. A node that no longer keeps them refuses: the watch ends with {@link
     * TenureException.Code#REVISION_COMPACTED}, and the caller lists again.
     */
    public WatchRequest fromRevision(long revision) {
        if (revision < 0) {
            throw new IllegalArgumentException("revision must not be negative, was " + revision);
        }
        return new WatchRequest(name, prefix, OptionalLong.of(revision));
    }

    public String nameOrPrefix() {
        return name;
    }

    public boolean isPrefix() {
        return prefix;
    }

    public OptionalLong revision() {
        return fromRevision;
    }

    @Override
    public String toString() {
        return (prefix ? "prefix '" : "name '") + name + "'"
                + (fromRevision.isPresent() ? " after revision " + fromRevision.getAsLong() : "");
    }
}
