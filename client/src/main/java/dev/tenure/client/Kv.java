package dev.tenure.client;

import dev.tenure.api.v1.Fence;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Tenure's fenced key-value store: {@link TenureClient#kv()} writes without a session,
 * {@link Session#kv()} within one. The same calls either way; a session's writes carry its
 * request ids, so a retry is answered from the server's record instead of writing twice, while a
 * client's retry writes the same value again (which a fenced write only does while its token is
 * still current). Writes need no session: a fenced write's authority is its token.
 *
 * <p>A fenced write is accepted only while its token is its lock's <em>current</em> grant, else
 * it is refused with {@link StaleTokenException} and nothing changes: the check and the write are
 * one log entry, so no grant can come between them. This is stricter than a
 * {@link dev.tenure.client.fence.FencedStore}'s contract asks ({@code FencedStore.of(kv)} is this
 * store as one). A key whose last write was fenced stays fenced: an unfenced write of it is
 * refused with {@link TenureException.Code#KEY_FENCED} (naming the lock), unless it overrides the fence.
 *
 * <pre>{@code
 * kv.put("orders/next", bytes, lease.lock(), lease.fence(Duration.ofSeconds(1)));
 * }</pre>
 */
public final class Kv {
    /** Whom the writes act for: no session, or one session with its request ids. */
    interface Writer {
        Caller caller();

        long nextRequestId();

        Writes.Failure failure();
    }

    private final ClientContext ctx;
    private final Writer writer;

    Kv(ClientContext ctx, Writer writer) {
        this.ctx = ctx;
        this.writer = writer;
    }

    /** The key's value and who wrote it, read through the log; empty if it has none. */
    public Optional<KvEntry> get(String key) {
        return Reads.get(ctx, Objects.requireNonNull(key, "key"));
    }

    /** Unfenced write; refused with {@link TenureException.Code#KEY_FENCED} if the key's last write was fenced. */
    public void put(String key, byte[] value) {
        write(key, value, null, false);
    }

    /**
     * Fenced write: accepted only while {@code token} is {@code lock}'s current grant, else
     * {@link StaleTokenException} naming the current token, and nothing changes.
     */
    public void put(String key, byte[] value, String lock, long token) {
        write(key, value, Writes.fence(lock, token), false);
    }

    /**
     * Unfenced write that is accepted even if the key's last write was fenced: an explicit act (an
     * operator's repair, a migration), since it lands whatever the fencing lock's holder believes.
     * Afterwards the key is unfenced until a fenced write. On an unfenced key it is
     * {@link #put(String, byte[])}.
     */
    public void putOverridingFence(String key, byte[] value) {
        write(key, value, null, true);
    }

    /** Unfenced delete; returns whether the key existed. Refused like {@link #put(String, byte[])}. */
    public boolean delete(String key) {
        return remove(key, null, false);
    }

    /** Fenced delete; returns whether the key existed. Refused like a fenced put. */
    public boolean delete(String key, String lock, long token) {
        return remove(key, Writes.fence(lock, token), false);
    }

    /**
     * Unfenced delete that is accepted even if the key's last write was fenced; an explicit act, as
     * {@link #putOverridingFence(String, byte[])}. Returns whether the key existed.
     */
    public boolean deleteOverridingFence(String key) {
        return remove(key, null, true);
    }

    private void write(String key, byte[] value, @Nullable Fence fence, boolean override) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Caller caller = writer.caller();
        Writes.put(ctx, caller, writer.nextRequestId(), key, value, fence, override, writer.failure());
    }

    private boolean remove(String key, @Nullable Fence fence, boolean override) {
        Objects.requireNonNull(key, "key");
        Caller caller = writer.caller();
        return Writes.delete(ctx, caller, writer.nextRequestId(), key, fence, override, writer.failure());
    }
}
