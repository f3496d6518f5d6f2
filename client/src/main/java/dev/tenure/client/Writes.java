package dev.tenure.client;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Fence;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Writes to the fenced KV. With a session they carry a request id, so a retry is answered from
 * the server's record; without one (session id 0) a retry simply writes the same value again,
 * which a fenced write only does while its token is still current.
 */
final class Writes {
    private Writes() {}

    /** Thrown codes other than STALE_TOKEN go through {@code failure}. */
    interface Failure {
        TenureException of(String request, Code code, String message);
    }

    static void put(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String key,
            byte[] value,
            @Nullable Fence fence,
            Failure failure) {
        put(ctx, caller, requestId, key, value, fence, false, failure);
    }

    /**
     * {@code overrideFence}: an unfenced write to a key last written fenced lands anyway; without
     * it the server refuses (KEY_FENCED, thrown as a {@link StaleTokenException} with {@link TenureException.Code#KEY_FENCED}).
     */
    static void put(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String key,
            byte[] value,
            @Nullable Fence fence,
            boolean overrideFence,
            Failure failure) {
        Blocking.join(putAsync(ctx, caller, requestId, key, value, fence, overrideFence, Condition.NONE, failure));
    }

    /**
     * What a write asks beyond its fence: the version it expects ({@link #ANY}: none) and whether
     * the key is ephemeral (deleted when the writing session ends).
     */
    record Condition(long ifVersion, boolean ephemeral) {
        static final long ANY = -1;
        static final Condition NONE = new Condition(ANY, false);
    }

    /** The put; its future completes with the key's new version, or fails as {@link #put} throws. */
    static CompletableFuture<Long> putAsync(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String key,
            byte[] value,
            @Nullable Fence fence,
            boolean overrideFence,
            Condition condition,
            Failure failure) {
        KvPutRequest.Builder b = KvPutRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setKey(key)
                .setValue(ByteString.copyFrom(value))
                .setOverrideFence(overrideFence)
                .setEphemeral(condition.ephemeral());
        if (fence != null) {
            b.setFence(fence);
        }
        if (condition.ifVersion() != Condition.ANY) {
            b.setIfVersion(condition.ifVersion());
        }
        return ctx.retrier
                .call(TenureGrpc.getKvPutMethod(), b.build(), ctx.requestTimeoutNanos)
                .thenApply(r -> {
                    if (r.getCode() == Code.CODE_STALE_TOKEN) {
                        throw stale(key, fence, r.getCurrentToken());
                    } else if (r.getCode() == Code.CODE_KEY_FENCED) {
                        throw StaleTokenException.keyFenced(key, r.getMessage());
                    } else if (r.getCode() == Code.CODE_VERSION_MISMATCH) {
                        throw new VersionMismatchException(key, condition.ifVersion(), r.getVersion());
                    } else if (r.getCode() != Code.CODE_OK) {
                        throw failure.of("put '" + key + "'", r.getCode(), r.getMessage());
                    }
                    return r.getVersion();
                });
    }

    /** Returns whether the key existed. */
    static boolean delete(
            ClientContext ctx, Caller caller, long requestId, String key, @Nullable Fence fence, Failure failure) {
        return delete(ctx, caller, requestId, key, fence, false, failure);
    }

    /** Returns whether the key existed; {@code overrideFence} as for {@code put}. */
    static boolean delete(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String key,
            @Nullable Fence fence,
            boolean overrideFence,
            Failure failure) {
        return Blocking.join(deleteAsync(ctx, caller, requestId, key, fence, overrideFence, Condition.ANY, failure));
    }

    /** The delete; its future completes with whether the key existed, or fails as {@link #delete} throws. */
    static CompletableFuture<Boolean> deleteAsync(
            ClientContext ctx,
            Caller caller,
            long requestId,
            String key,
            @Nullable Fence fence,
            boolean overrideFence,
            long ifVersion,
            Failure failure) {
        KvDeleteRequest.Builder b = KvDeleteRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setKey(key)
                .setOverrideFence(overrideFence);
        if (fence != null) {
            b.setFence(fence);
        }
        if (ifVersion != Condition.ANY) {
            b.setIfVersion(ifVersion);
        }
        return ctx.retrier
                .call(TenureGrpc.getKvDeleteMethod(), b.build(), ctx.requestTimeoutNanos)
                .thenApply(r -> deleted(key, fence, ifVersion, r, failure));
    }

    private static boolean deleted(
            String key, @Nullable Fence fence, long ifVersion, KvDeleteResponse r, Failure failure) {
        return switch (r.getCode()) {
            case CODE_OK -> true;
            case CODE_NOT_FOUND -> false;
            case CODE_STALE_TOKEN -> throw stale(key, fence, r.getCurrentToken());
            case CODE_KEY_FENCED -> throw StaleTokenException.keyFenced(key, r.getMessage());
            case CODE_VERSION_MISMATCH -> throw new VersionMismatchException(key, ifVersion, r.getVersion());
            default -> throw failure.of("delete '" + key + "'", r.getCode(), r.getMessage());
        };
    }

    /** A fenced write of the lock's checkpoint; STALE_TOKEN becomes {@link StaleTokenException}. */
    static void checkpoint(
            ClientContext ctx, Caller caller, long requestId, String lock, long token, byte[] value, Failure failure) {
        WriteCheckpointRequest request = WriteCheckpointRequest.newBuilder()
                .setSessionId(caller.sessionId())
                .setSessionSecret(caller.secret())
                .setRequestId(requestId)
                .setLock(lock)
                .setToken(token)
                .setValue(ByteString.copyFrom(value))
                .build();
        WriteCheckpointResponse r = Blocking.join(
                ctx.retrier.call(TenureGrpc.getWriteCheckpointMethod(), request, ctx.requestTimeoutNanos));
        if (r.getCode() == Code.CODE_STALE_TOKEN) {
            throw new StaleTokenException("checkpoint of " + lock, token, r.getCurrentToken());
        } else if (r.getCode() != Code.CODE_OK) {
            throw failure.of("checkpoint '" + lock + "'", r.getCode(), r.getMessage());
        }
    }

    static Fence fence(String lock, long token) {
        return Fence.newBuilder().setLock(lock).setToken(token).build();
    }

    private static StaleTokenException stale(String key, @Nullable Fence fence, long currentToken) {
        return new StaleTokenException(key, fence == null ? 0 : fence.getToken(), currentToken);
    }
}
