package dev.tenure.client;

/**
 * A conditional KV write ({@link Kv#putIfVersion}, {@link Kv#deleteIfVersion}) found the key at
 * another version than the one it named; nothing changed. {@link #currentVersion()} is the key's
 * version when the write was decided (0: the key does not exist), so a compare-and-set loop can
 * read again and retry.
 */
public final class VersionMismatchException extends TenureException {
    private static final long serialVersionUID = 1L;

    private final String key;
    private final long expectedVersion;
    private final long currentVersion;

    public VersionMismatchException(String key, long expectedVersion, long currentVersion) {
        super(
                Code.VERSION_MISMATCH,
                "version mismatch on '" + key + "': expected " + expectedVersion + ", the current version is "
                        + currentVersion + "; nothing changed");
        this.key = key;
        this.expectedVersion = expectedVersion;
        this.currentVersion = currentVersion;
    }

    public String key() {
        return key;
    }

    /** The version the write named (0: the key must not exist). */
    public long expectedVersion() {
        return expectedVersion;
    }

    /** The key's version when the write was decided; 0 when the key does not exist. */
    public long currentVersion() {
        return currentVersion;
    }
}
