package dev.tenure.server.gateway;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.api.v1.CallRequest;
import dev.tenure.api.v1.CallResponse;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvDeleteResponse;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvGetResponse;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LeaderRequest;
import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.ListLocksRequest;
import dev.tenure.api.v1.ListLocksResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import dev.tenure.gateway.Answer;
import dev.tenure.gateway.Gateway;
import dev.tenure.gateway.Permission;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The gRPC face of a node: each rpc handed to the {@link Gateway}, which decides it; only the
 * node's own status is answered here, since it reads the node as well as the log.
 */
final class GrpcService extends TenureGrpc.TenureImplBase {
    private final Gateway gateway;
    private final Function<ServerStatusRequest, CompletableFuture<ServerStatusResponse>> nodeStatus;
    private final Supplier<LeaderResponse> leader;

    private final java.util.function.Consumer<StreamObserver<dev.tenure.api.v1.BackupChunk>> backup;

    GrpcService(
            Gateway gateway,
            Function<ServerStatusRequest, CompletableFuture<ServerStatusResponse>> nodeStatus,
            Supplier<LeaderResponse> leader,
            java.util.function.Consumer<StreamObserver<dev.tenure.api.v1.BackupChunk>> backup) {
        this.gateway = gateway;
        this.nodeStatus = nodeStatus;
        this.leader = leader;
        this.backup = backup;
    }

    /** The whole state is everyone's locks and keys: only a principal with admin on every name may read it. */
    @Override
    public void backup(dev.tenure.api.v1.BackupRequest request, StreamObserver<dev.tenure.api.v1.BackupChunk> chunks) {
        try {
            gateway.requirePermission(Permission.ADMIN, "");
        } catch (StatusRuntimeException denied) {
            chunks.onError(denied);
            return;
        }
        backup.accept(chunks);
    }

    @Override
    public StreamObserver<AttachRequest> attach(StreamObserver<AttachResponse> responses) {
        return gateway.attach(responses);
    }

    @Override
    public StreamObserver<AttachFrames> attachMany(StreamObserver<AttachEvents> events) {
        return gateway.attachMany(events);
    }

    @Override
    public StreamObserver<CallRequest> calls(StreamObserver<CallResponse> responses) {
        return gateway.calls(responses);
    }

    @Override
    public void acquire(AcquireRequest request, StreamObserver<AcquireResponse> responses) {
        gateway.acquire(request, Answer.unary(responses));
    }

    @Override
    public void release(ReleaseRequest request, StreamObserver<ReleaseResponse> responses) {
        gateway.release(request, Answer.unary(responses));
    }

    @Override
    public void renewLease(RenewLeaseRequest request, StreamObserver<RenewLeaseResponse> responses) {
        gateway.renewLease(request, Answer.unary(responses));
    }

    @Override
    public void proclaim(
            dev.tenure.api.v1.ProclaimRequest request, StreamObserver<dev.tenure.api.v1.ProclaimResponse> responses) {
        gateway.proclaim(request, Answer.unary(responses));
    }

    @Override
    public void downgrade(
            dev.tenure.api.v1.DowngradeRequest request, StreamObserver<dev.tenure.api.v1.DowngradeResponse> responses) {
        gateway.downgrade(request, Answer.unary(responses));
    }

    @Override
    public void writeCheckpoint(WriteCheckpointRequest request, StreamObserver<WriteCheckpointResponse> responses) {
        gateway.writeCheckpoint(request, Answer.unary(responses));
    }

    @Override
    public void lockStatus(LockStatusRequest request, StreamObserver<LockStatusResponse> responses) {
        gateway.lockStatus(request, Answer.unary(responses));
    }

    @Override
    public void listLocks(ListLocksRequest request, StreamObserver<ListLocksResponse> responses) {
        gateway.listLocks(request, Answer.unary(responses));
    }

    @Override
    public void kvPut(KvPutRequest request, StreamObserver<KvPutResponse> responses) {
        gateway.kvPut(request, Answer.unary(responses));
    }

    @Override
    public void kvGet(KvGetRequest request, StreamObserver<KvGetResponse> responses) {
        gateway.kvGet(request, Answer.unary(responses));
    }

    @Override
    public void kvDelete(KvDeleteRequest request, StreamObserver<KvDeleteResponse> responses) {
        gateway.kvDelete(request, Answer.unary(responses));
    }

    @Override
    public void watch(dev.tenure.api.v1.WatchRequest request, StreamObserver<dev.tenure.api.v1.WatchEvent> events) {
        gateway.watch(request, events);
    }

    @Override
    public void watchBatches(
            dev.tenure.api.v1.WatchRequest request, StreamObserver<dev.tenure.api.v1.WatchBatch> batches) {
        gateway.watchBatches(request, batches);
    }

    /**
     * Open to every principal, unlike {@link #serverStatus}: it tells only which configured
     * endpoint leads, which any client needs to route its calls, and reads nothing of the state.
     */
    @Override
    public void leader(LeaderRequest request, StreamObserver<LeaderResponse> responses) {
        responses.onNext(leader.get());
        responses.onCompleted();
    }

    @Override
    public void serverStatus(ServerStatusRequest request, StreamObserver<ServerStatusResponse> responses) {
        try {
            gateway.requirePermission(Permission.MONITOR, "");
        } catch (StatusRuntimeException denied) {
            responses.onError(denied);
            return;
        }
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = nodeStatus.apply(request).whenComplete((status, error) -> {
            if (error != null) {
                responses.onError(
                        Status.UNAVAILABLE.withDescription(error.getMessage()).asRuntimeException());
            } else {
                responses.onNext(status);
                responses.onCompleted();
            }
        });
    }
}
