package dev.tenure.server.gateway;

import com.google.protobuf.ByteString;
import dev.tenure.api.v1.BackupChunk;
import dev.tenure.api.v1.BackupHeader;
import dev.tenure.log.v1.Backup;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.server.cluster.Backups;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One backup call: logs a Backup entry and streams the state this node's replica encoded when it
 * applied that entry. The state is read at an applied log position, never from the replica as it
 * happens to stand, so it is one committed prefix of the log: what every replica held there.
 *
 * <p>Chunks are sent only while the call is ready for more (gRPC's flow control), and the rest when
 * the client has read: a state larger than the node's per-connection unsent-bytes limit would
 * otherwise be queued whole, and the node would close the backup's connection as a client that does
 * not read.
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
        // The service is called with a ServerCallStreamObserver; its ready handler may be set only now.
        Sender sender = new Sender((ServerCallStreamObserver<BackupChunk>) chunks);
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
                        sender.fail(Status.UNAVAILABLE
                                .withDescription("backup failed: " + error.getMessage())
                                .asRuntimeException());
                    } else {
                        sender.start(state, Math.min(CHUNK_BYTES_MAX, messageBytesMax / 2));
                    }
                });
    }

    /**
     * Sends the header, then the state's chunks while the call is ready; the call's ready handler
     * sends the rest. Synchronized: the handler runs on the transport's thread, the start on the
     * thread that completed the backup, and a call takes one message at a time.
     */
    private static final class Sender {
        private final ServerCallStreamObserver<BackupChunk> call;
        private byte @Nullable [] bytes;
        private int chunkBytes;
        private int at;
        private boolean over;

        Sender(ServerCallStreamObserver<BackupChunk> call) {
            this.call = call;
            call.setOnReadyHandler(this::drain);
            call.setOnCancelHandler(this::cancelled);
        }

        synchronized void start(Backups.Taken state, int chunkBytes) {
            if (over) {
                return;
            }
            this.bytes = state.snapshot();
            this.chunkBytes = chunkBytes;
            call.onNext(BackupChunk.newBuilder()
                    .setHeader(BackupHeader.newBuilder()
                            .setLogPosition(state.logPosition())
                            .setLastToken(state.lastToken())
                            .setCreatedAtMs(state.createdAtMs())
                            .setSnapshotBytes(bytes.length))
                    .build());
            drain();
        }

        synchronized void fail(RuntimeException error) {
            if (!over) {
                over = true;
                call.onError(error);
            }
        }

        private synchronized void cancelled() {
            over = true;
            bytes = null;
        }

        private synchronized void drain() {
            byte[] state = bytes;
            if (over || state == null) {
                return;
            }
            while (at < state.length && call.isReady()) {
                int n = Math.min(chunkBytes, state.length - at);
                call.onNext(BackupChunk.newBuilder()
                        .setData(ByteString.copyFrom(state, at, n))
                        .build());
                at += n;
            }
            if (at == state.length) {
                over = true;
                bytes = null;
                call.onCompleted();
            }
        }
    }
}
