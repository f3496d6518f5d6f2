package dev.tenure.client;

import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.TenureGrpc;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** Requests that need no session: they change nothing, so retrying them needs no request id. */
final class Reads {
    private Reads() {}

    static Optional<KvEntry> get(ClientContext ctx, String key) {
        KvGetResponse r = Blocking.join(ctx.retrier.call(
                TenureGrpc.getKvGetMethod(),
                KvGetRequest.newBuilder().setKey(key).build(),
                ctx.requestTimeoutNanos));
        return switch (r.getCode()) {
            case CODE_OK -> Optional.of(KvEntry.from(key, r));
            case CODE_NOT_FOUND -> Optional.empty();
            default -> throw Outcomes.unexpected("get '" + key + "'", r.getCode(), r.getMessage());
        };
    }

    static LockStatus status(ClientContext ctx, String lock) {
        LockStatusResponse r = Blocking.join(ctx.retrier.call(
                TenureGrpc.getLockStatusMethod(),
                LockStatusRequest.newBuilder().setLock(lock).build(),
                ctx.requestTimeoutNanos));
        return switch (r.getCode()) {
            case CODE_OK, CODE_UNSPECIFIED -> LockStatus.from(lock, r);
            // A lock nobody has touched (or whose history aged out) is simply free.
            case CODE_NOT_FOUND ->
                new LockStatus(
                        lock,
                        Optional.empty(),
                        List.of(),
                        List.of(),
                        Instant.ofEpochMilli(r.getNowMs()),
                        Optional.empty(),
                        Optional.empty(),
                        LockStatus.StaleWrites.NONE,
                        List.of(),
                        1);
            default -> throw Outcomes.unexpected("status '" + lock + "'", r.getCode(), r.getMessage());
        };
    }

    static ServerStatus serverStatus(ClientContext ctx) {
        return ServerStatus.from(Blocking.join(ctx.retrier.call(
                TenureGrpc.getServerStatusMethod(),
                ServerStatusRequest.newBuilder().setStateDigest(true).build(),
                ctx.requestTimeoutNanos)));
    }
}
