package dev.tenure.server.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.BackupChunk;
import dev.tenure.api.v1.BackupHeader;
import dev.tenure.log.v1.Backup;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.server.cluster.Backups;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One backup call: logs a Backup entry and streams the state this node's replica encoded when it
 * applied that entry. The state is read at an applied log position, never from the replica as it
 * happens to stand, so it is one committed prefix of the log: what every replica held there.
 */
final class BackupCall {
    /** The largest chunk streamed, well under any message size a client accepts. */
    static final int CHUNK_BYTES_MAX = 256 * 1024;

    private static final SecureRandom IDS = new SecureRandom();

    private BackupCall() {}

    /**
     * Serves one call. {@code messageBytesMax} bounds each chunk with room for its framing; the
     * replica gets {@code applyTimeoutMs} after the leader's reply to apply the entry too.
     */
    static void serve(
            ClusterChannel cluster,
            Backups backups,
            int messageBytesMax,
            long applyTimeoutMs,
            StreamObserver<BackupChunk> chunks) {
        long id = IDS.nextLong() | 1; // never 0, the proto default
        CompletableFuture<Backups.Taken> taken = backups.expect(id);
        var unused = cluster.submit(
                        LogCommand.newBuilder().setBackup(Backup.newBuilder().setBackupId(id)))
                .thenCompose(reply -> {
                    if (!reply.hasStats()) {
                        throw Status.UNAVAILABLE
                                .withDescription(
                                        "backup not applied: " + reply.getDone().getMessage())
                                .asRuntimeException();
                    }
                    return taken.orTimeout(applyTimeoutMs, TimeUnit.MILLISECONDS);
                })
                .whenComplete((state, error) -> {
                    backups.forget(id);
                    if (error != null) {
                        chunks.onError(Status.UNAVAILABLE
                                .withDescription("backup failed: " + error.getMessage())
                                .asRuntimeException());
                    } else {
                        send(state, Math.min(CHUNK_BYTES_MAX, messageBytesMax / 2), chunks);
                    }
                });
    }

    private static void send(Backups.Taken state, int chunkBytes, StreamObserver<BackupChunk> chunks) {
        byte[] bytes = state.snapshot();
        chunks.onNext(BackupChunk.newBuilder()
                .setHeader(BackupHeader.newBuilder()
                        .setLogPosition(state.logPosition())
                        .setLastToken(state.lastToken())
                        .setCreatedAtMs(state.createdAtMs())
                        .setSnapshotBytes(bytes.length))
                .build());
        for (int at = 0; at < bytes.length; at += chunkBytes) {
            int n = Math.min(chunkBytes, bytes.length - at);
            chunks.onNext(BackupChunk.newBuilder()
                    .setData(ByteString.copyFrom(bytes, at, n))
                    .build());
        }
        chunks.onCompleted();
    }
}
