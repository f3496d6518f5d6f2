package dev.tenure.client;

import dev.tenure.api.v1.Fence;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
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
 * <p>Every value has a version ({@link KvEntry#version()}: 1 on create, one more per put; a key
 * deleted and written again starts at 1). {@link #putIfVersion} and {@link #deleteIfVersion}
 * compare and set: decided in log order, so of two writers that read the same version only the
 * first is carried out. {@link Session#putEphemeral} writes a key that is deleted when its session
 * ends.
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

    /**
     * Unfenced write; refused with {@link TenureException.Code#KEY_FENCED} if the key's last write was
     * fenced. Returns the key's new version, as every put does.
     */
    public long put(String key, byte[] value) {
        return write(key, value, null, false);
    }

    /**
     * Fenced write: accepted only while {@code token} is {@code lock}'s current grant, else
     * {@link StaleTokenException} naming the current token, and nothing changes.
     */
    public long put(String key, byte[] value, String lock, long token) {
        return write(key, value, Writes.fence(lock, token), false);
    }

    /**
     * Unfenced write that is accepted even if the key's last write was fenced: an explicit act (an
     * operator's repair, a migration), since it lands whatever the fencing lock's holder believes.
     * Afterwards the key is unfenced until a fenced write. On an unfenced key it is
     * {@link #put(String, byte[])}.
     */
    public long putOverridingFence(String key, byte[] value) {
        return write(key, value, null, true);
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

    /**
     * Compare-and-set: writes only if the key's version is {@code expectedVersion} (0: only if the
     * key does not exist), else {@link VersionMismatchException} naming the current version, and
     * nothing changes. Returns the key's new version. Refused like {@link #put(String, byte[])}
     * for a fenced key; {@link #putIfVersion(String, byte[], long, String, long)} composes with a
     * fence (both checks must pass).
     */
    public long putIfVersion(String key, byte[] value, long expectedVersion) {
        return Blocking.join(versioned(key, value, null, expectedVersion));
    }

    /** {@link #putIfVersion(String, byte[], long)} that is also fenced, as {@link #put(String, byte[], String, long)}. */
    public long putIfVersion(String key, byte[] value, long expectedVersion, String lock, long token) {
        return Blocking.join(versioned(key, value, Writes.fence(lock, token), expectedVersion));
    }

    /** {@link #putIfVersion(String, byte[], long)} without blocking: the future completes with the new version. */
    public CompletableFuture<Long> putIfVersionAsync(String key, byte[] value, long expectedVersion) {
        return OffLoop.view(ctx.time, versioned(key, value, null, expectedVersion), true);
    }

    /**
     * Deletes only if the key's version is {@code expectedVersion}, else {@link
     * VersionMismatchException} naming the current version (0 when the key does not exist), and
     * nothing changes.
     */
    public void deleteIfVersion(String key, long expectedVersion) {
        Blocking.join(versionedDelete(key, expectedVersion, null));
    }

    /** {@link #deleteIfVersion(String, long)} that is also fenced: both checks must pass. */
    public void deleteIfVersion(String key, long expectedVersion, String lock, long token) {
        Blocking.join(versionedDelete(key, expectedVersion, Writes.fence(lock, token)));
    }

    /** {@link #deleteIfVersion(String, long)} without blocking. */
    public CompletableFuture<Void> deleteIfVersionAsync(String key, long expectedVersion) {
        return OffLoop.view(ctx.time, versionedDelete(key, expectedVersion, null), true);
    }

    private CompletableFuture<Void> versionedDelete(String key, long expectedVersion, @Nullable Fence fence) {
        Objects.requireNonNull(key, "key");
        requireVersion(expectedVersion);
        Caller caller = writer.caller();
        return Writes.deleteAsync(
                        ctx, caller, writer.nextRequestId(), key, fence, false, expectedVersion, writer.failure())
                .thenApply(existed -> null);
    }

    /** An ephemeral put for {@link Session#putEphemeral}: the key goes when the writing session ends. */
    CompletableFuture<Long> putEphemeral(String key, byte[] value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Caller caller = writer.caller();
        return Writes.putAsync(
                ctx,
                caller,
                writer.nextRequestId(),
                key,
                value,
                null,
                false,
                new Writes.Condition(Writes.Condition.ANY, true),
                writer.failure());
    }

    private CompletableFuture<Long> versioned(String key, byte[] value, @Nullable Fence fence, long expectedVersion) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        requireVersion(expectedVersion);
        Caller caller = writer.caller();
        return Writes.putAsync(
                ctx,
                caller,
                writer.nextRequestId(),
                key,
                value,
                fence,
                false,
                new Writes.Condition(expectedVersion, false),
                writer.failure());
    }

    private static void requireVersion(long expectedVersion) {
        if (expectedVersion < 0) {
            throw new IllegalArgumentException(
                    "expectedVersion is " + expectedVersion + "; it must be 0 (the key must not exist) or more");
        }
    }

    /** Returns the key's new version. */
    private long write(String key, byte[] value, @Nullable Fence fence, boolean override) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        Caller caller = writer.caller();
        return Blocking.join(Writes.putAsync(
                ctx,
                caller,
                writer.nextRequestId(),
                key,
                value,
                fence,
                override,
                Writes.Condition.NONE,
                writer.failure()));
    }

    private boolean remove(String key, @Nullable Fence fence, boolean override) {
        Objects.requireNonNull(key, "key");
        Caller caller = writer.caller();
        return Writes.delete(ctx, caller, writer.nextRequestId(), key, fence, override, writer.failure());
    }
}
