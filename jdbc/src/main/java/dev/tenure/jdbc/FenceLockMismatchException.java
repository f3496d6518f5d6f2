package dev.tenure.jdbc;

/**
 * A guard named a lock other than the one the resource's fence row belongs to. A resource is
 * fenced by one lock: its row records the lock of its first guard, and a token of any other lock,
 * however genuine and however high, must not move its mark (it would lock the real holder out).
 * Nothing was written; the guard rolled the transaction back. Not a stale token: use the lock that
 * fences the resource, or move the resource on purpose with {@link JdbcFence#moveResource}.
 */
public class FenceLockMismatchException extends RuntimeException {
    private final String resource;
    private final String lock;
    private final String fenceLock;

    public FenceLockMismatchException(String resource, String lock, String fenceLock) {
        super("fenced write to '" + resource + "' under lock '" + lock + "' refused: the resource is fenced by lock '"
                + fenceLock + "' (recorded at its first guard), and one resource belongs to one lock. Use lock '"
                + fenceLock + "', or move the resource on purpose with JdbcFence.moveResource (docs/fencing.md,"
                + " \"One lock per resource\")");
        this.resource = resource;
        this.lock = lock;
        this.fenceLock = fenceLock;
    }

    public String resource() {
        return resource;
    }

    /** The lock the refused guard named. */
    public String lock() {
        return lock;
    }

    /** The lock the resource belongs to. */
    public String fenceLock() {
        return fenceLock;
    }
}
