package dev.tenure.client;

/**
 * An unfenced put or delete of a key whose last write was fenced; nothing was written. The message
 * names the lock that fences the key. Write it with that lock's current token, or, to write it
 * unfenced on purpose, use {@link Kv#putOverridingFence(String, byte[])} or
 * {@link Kv#deleteOverridingFence(String)}.
 */
public class KeyFencedException extends TenureException {
    private final String key;

    KeyFencedException(String key, String message) {
        super(message.isEmpty() ? "key '" + key + "' was last written fenced: an unfenced write is refused" : message);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
