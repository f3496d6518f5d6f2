package dev.tenure.bench.limits;

import dev.tenure.bench.load.ClosedLoop;
import dev.tenure.bench.load.LoadConfig;
import dev.tenure.bench.report.Figures;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What gRPC itself costs a request: a unary echo of 64 bytes, server and client in this JVM on
 * 127.0.0.1 over the same Netty transport the gateway uses. One client in a loop gives the round
 * trip; {@code clients} concurrent callers on one channel give the throughput ceiling of the RPC
 * layer alone, before any log or state machine.
 */
final class GrpcEchoLimit {

    private static final int MESSAGE_BYTES = 64;

    private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("tenure.bench.Echo", "Echo"))
            .setRequestMarshaller(new Bytes())
            .setResponseMarshaller(new Bytes())
            .build();

    private GrpcEchoLimit() {}

    static List<Figures> run(LoadConfig config, int clients) throws IOException, InterruptedException {
        ServerServiceDefinition service = ServerServiceDefinition.builder("tenure.bench.Echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .build();
        Server server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
                .addService(service)
                .build()
                .start();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .build();
        try {
            List<Figures> out = new ArrayList<>();
            out.add(loop("limit-grpc-rtt", config.withClients(1), channel));
            out.add(loop("limit-grpc-" + clients + "-clients", config.withClients(clients), channel));
            return out;
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private static Figures loop(String name, LoadConfig config, ManagedChannel channel) throws InterruptedException {
        byte[] message = new byte[MESSAGE_BYTES];
        List<ClosedLoop.Cycle> cycles = new ArrayList<>();
        for (int i = 0; i < config.clients(); i++) {
            cycles.add(() -> {
                long t0 = System.nanoTime();
                ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, message);
                return System.nanoTime() - t0;
            });
        }
        return ClosedLoop.run(name, config, cycles).with("latency", MESSAGE_BYTES + " B unary gRPC echo on loopback");
    }

    private static final class Bytes implements MethodDescriptor.Marshaller<byte[]> {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
