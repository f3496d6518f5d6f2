package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.ServiceDescriptorProto;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TestPorts;
import dev.tenure.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standard gRPC services a real node serves beside tenure.v1.Tenure: server reflection (on by
 * default, off with --grpc-reflection=false) and health (grpc.health.v1), which follows quorum.
 */
class GrpcServicesIT {

    @TempDir
    Path dir;

    @Test
    void reflectionListsTheServicesAndGivesTenuresFileDescriptor() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data")).start()) {
            ManagedChannel channel = channel(server.endpoint());
            try {
                ServerReflectionResponse listed = reflect(
                        channel,
                        ServerReflectionRequest.newBuilder().setListServices("").build());
                assertThat(listed.getListServicesResponse().getServiceList())
                        .extracting(ServiceResponse::getName)
                        .contains("tenure.v1.Tenure", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection");

                ServerReflectionResponse file = reflect(
                        channel,
                        ServerReflectionRequest.newBuilder()
                                .setFileContainingSymbol("tenure.v1.Tenure")
                                .build());
                List<FileDescriptorProto> files = new ArrayList<>();
                for (var bytes : file.getFileDescriptorResponse().getFileDescriptorProtoList()) {
                    files.add(FileDescriptorProto.parseFrom(bytes));
                }
                assertThat(files)
                        .filteredOn(f -> f.getPackage().equals("tenure.v1"))
                        .flatExtracting(FileDescriptorProto::getServiceList)
                        .extracting(ServiceDescriptorProto::getName)
                        .contains("Tenure");
                assertThat(files)
                        .flatExtracting(FileDescriptorProto::getServiceList)
                        .filteredOn(s -> s.getName().equals("Tenure"))
                        .singleElement()
                        .satisfies(s -> assertThat(s.getMethodList())
                                .extracting(m -> m.getName())
                                .contains("Acquire", "Release", "Attach"));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void withReflectionOffAReflectionCallEndsUnimplemented() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data"))
                .withOptions("--grpc-reflection=false")
                .start()) {
            ManagedChannel channel = channel(server.endpoint());
            try {
                Throwable refused = reflectionFailure(channel);
                assertThat(Status.fromThrowable(refused).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
                assertThat(health(channel)).as("health is served still").isEqualTo(ServingStatus.SERVING);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void healthIsServingOnANodeWithQuorumAndNotServingOnAMemberWithout() throws Exception {
        try (ServerProcess lone = new ServerProcess(dir.resolve("lone")).start()) {
            ManagedChannel channel = channel(lone.endpoint());
            try {
                assertThat(health(channel)).isEqualTo(ServingStatus.SERVING);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
        // Member 0 of three whose two peers never start: it serves its port, with no quorum.
        List<Integer> ports =
                List.of(LoopbackPorts.freeTcpPort(), LoopbackPorts.freeTcpPort(), LoopbackPorts.freeTcpPort());
        String members = "0=127.0.0.1:" + ports.get(0) + "@" + TestPorts.freeAeronPortBase() + ",1=127.0.0.1:"
                + ports.get(1) + "@" + TestPorts.freeAeronPortBase() + ",2=127.0.0.1:" + ports.get(2) + "@"
                + TestPorts.freeAeronPortBase();
        try (Processes.Running member = new Processes.Running(
                Processes.tenure(List.of(
                        "server",
                        "--data",
                        dir.resolve("member").toString(),
                        "--node-id",
                        "0",
                        "--members",
                        members,
                        "--admin-port",
                        "0")),
                java.util.Map.of())) {
            assertThat(member.nextLine(Duration.ofSeconds(60))).contains("node 0 serving on 127.0.0.1:" + ports.get(0));
            ManagedChannel channel = channel("127.0.0.1:" + ports.get(0));
            try {
                Await.atMost(Duration.ofSeconds(30))
                        .until(
                                "NOT_SERVING without a quorum",
                                () -> health(channel),
                                s -> s == ServingStatus.NOT_SERVING);
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    private static ManagedChannel channel(String endpoint) {
        return NettyChannelBuilder.forTarget(endpoint).usePlaintext().build();
    }

    private static ServingStatus health(ManagedChannel channel) {
        return HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("").build())
                .getStatus();
    }

    /** One request on a reflection stream, its one answer. */
    private static ServerReflectionResponse reflect(ManagedChannel channel, ServerReflectionRequest request)
            throws Exception {
        CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse response) {
                        answer.complete(response);
                    }

                    @Override
                    public void onError(Throwable t) {
                        answer.completeExceptionally(t);
                    }

                    @Override
                    public void onCompleted() {
                        answer.completeExceptionally(new AssertionError("the stream ended without an answer"));
                    }
                });
        requests.onNext(request);
        ServerReflectionResponse response = answer.get(15, TimeUnit.SECONDS);
        requests.onCompleted();
        assertThat(response.hasErrorResponse())
                .as(response.getErrorResponse().getErrorMessage())
                .isFalse();
        return response;
    }

    private static Throwable reflectionFailure(ManagedChannel channel) throws InterruptedException {
        try {
            reflect(
                    channel,
                    ServerReflectionRequest.newBuilder().setListServices("").build());
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError("expected the call to fail with a status", e);
        }
        throw new AssertionError("reflection answered with --grpc-reflection=false");
    }
}
