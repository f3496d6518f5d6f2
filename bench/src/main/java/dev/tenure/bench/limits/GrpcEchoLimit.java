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
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What gRPC itself costs a request: an echo of 64 bytes, server and client in this JVM on
 * 127.0.0.1 over the same Netty transport the gateway uses, as a unary call and as a message on
 * an open bidirectional stream (how the Java client carries its calls: the Calls rpc). One client
 * in a loop gives the round trip; {@code clients} concurrent callers on one channel (each with a
 * stream of its own) give the throughput ceiling of the RPC layer alone, before any log or state
 * machine.
 */
final class GrpcEchoLimit {

    private static final int MESSAGE_BYTES = 64;

    private static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("tenure.bench.Echo", "Echo"))
            .setRequestMarshaller(new Bytes())
            .setResponseMarshaller(new Bytes())
            .build();

    private static final MethodDescriptor<byte[], byte[]> STREAM = ECHO.toBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName("tenure.bench.Echo", "Stream"))
            .build();

    private GrpcEchoLimit() {}

    static List<Figures> run(LoadConfig config, int clients) throws IOException, InterruptedException {
        ServerServiceDefinition service = ServerServiceDefinition.builder("tenure.bench.Echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
                    response.onNext(request);
                    response.onCompleted();
                }))
                .addMethod(STREAM, ServerCalls.asyncBidiStreamingCall(response -> new StreamObserver<byte[]>() {
                    @Override
                    public void onNext(byte[] message) {
                        response.onNext(message);
                    }

                    @Override
                    public void onError(Throwable t) {}

                    @Override
                    public void onCompleted() {
                        response.onCompleted();
                    }
                }))
                .build();
        // The gateway's executor: handlers run on the event loop that read the request.
        Server server = NettyServerBuilder.forAddress(
                        new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0))
                .addService(service)
                .directExecutor()
                .build()
                .start();
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort())
                .usePlaintext()
                .build();
        try {
            List<Figures> out = new ArrayList<>();
            out.add(loop("limit-grpc-rtt", config.withClients(1), channel));
            out.add(loop("limit-grpc-" + clients + "-clients", config.withClients(clients), channel));
            out.add(streamLoop("limit-grpc-stream-rtt", config.withClients(1), channel));
            out.add(streamLoop("limit-grpc-stream-" + clients + "-clients", config.withClients(clients), channel));
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

    /** Each caller sends on a stream of its own and waits for the echo before it sends again. */
    private static Figures streamLoop(String name, LoadConfig config, ManagedChannel channel)
            throws InterruptedException {
        byte[] message = new byte[MESSAGE_BYTES];
        List<ClosedLoop.Cycle> cycles = new ArrayList<>();
        List<StreamObserver<byte[]>> streams = new ArrayList<>();
        for (int i = 0; i < config.clients(); i++) {
            BlockingQueue<byte[]> echoes = new LinkedBlockingQueue<>();
            StreamObserver<byte[]> stream = ClientCalls.asyncBidiStreamingCall(
                    channel.newCall(STREAM, CallOptions.DEFAULT), new StreamObserver<>() {
                        @Override
                        public void onNext(byte[] echo) {
                            echoes.add(echo);
                        }

                        @Override
                        public void onError(Throwable t) {}

                        @Override
                        public void onCompleted() {}
                    });
            streams.add(stream);
            cycles.add(() -> {
                long t0 = System.nanoTime();
                stream.onNext(message);
                if (echoes.poll(10, TimeUnit.SECONDS) == null) {
                    throw new IllegalStateException("no echo on the stream within 10 s");
                }
                return System.nanoTime() - t0;
            });
        }
        try {
            return ClosedLoop.run(name, config, cycles)
                    .with("latency", MESSAGE_BYTES + " B echo on an open gRPC stream on loopback");
        } finally {
            streams.forEach(StreamObserver::onCompleted);
        }
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
