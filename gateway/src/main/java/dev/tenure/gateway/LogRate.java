package dev.tenure.gateway;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Bounds the log bytes each client can cause per second (a token bucket per principal, or per
 * client address for a client without a certificate), so that no client can grow the log, and
 * so the disk, faster than {@code logBytesPerSecondMax} allows, whatever the state machine then
 * decides about its commands. A bucket holds one second's worth: a burst of that size passes.
 */
final class LogRate {
    /** Buckets kept at most; beyond it, the full ones (clients idle for a second) are dropped. */
    static final int CLIENTS_MAX = 10_000;

    private final long bytesPerSecondMax;
    private final LongSupplier nanoTime;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();

    LogRate(long bytesPerSecondMax, LongSupplier nanoTime) {
        if (bytesPerSecondMax <= 0) {
            throw new IllegalArgumentException("logBytesPerSecondMax must be positive, was " + bytesPerSecondMax);
        }
        this.bytesPerSecondMax = bytesPerSecondMax;
        this.nanoTime = nanoTime;
    }

    /** Takes {@code bytes} from {@code client}'s bucket; returns why it is refused (nothing taken), or null. */
    @Nullable
    String take(String client, long bytes) {
        if (buckets.size() > CLIENTS_MAX) {
            long now = nanoTime.getAsLong();
            buckets.values().removeIf(b -> b.full(now));
        }
        Bucket bucket = buckets.computeIfAbsent(client, c -> new Bucket(bytesPerSecondMax, nanoTime.getAsLong()));
        return bucket.take(bytes, nanoTime.getAsLong())
                ? null
                : "logBytesPerSecondMax (" + bytesPerSecondMax + ") reached by " + client
                        + ": its commands may add at most that many bytes to the log per second; retry later";
    }

    private static final class Bucket {
        private final long capacity;
        private long tokens;
        private long lastNanos;

        Bucket(long capacity, long now) {
            this.capacity = capacity;
            this.tokens = capacity;
            this.lastNanos = now;
        }

        synchronized boolean take(long bytes, long now) {
            refill(now);
            if (bytes > tokens) {
                return false;
            }
            tokens -= bytes;
            return true;
        }

        synchronized boolean full(long now) {
            refill(now);
            return tokens == capacity;
        }

        private void refill(long now) {
            long elapsed = now - lastNanos;
            if (elapsed > 0) {
                // capacity bytes per 1e9 ns, without overflow for a long idle bucket
                long added =
                        elapsed >= 1_000_000_000L ? capacity : (long) ((double) elapsed * capacity / 1_000_000_000L);
                tokens = Math.min(capacity, tokens + added);
                lastNanos = now;
            }
        }
    }
}
