package dev.tenure.jdbc;

import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Holder;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.KvPutResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.LockStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A scripted Tenure gateway on loopback, just enough for the real {@code TenureClient} to read a
 * lock's holder and make fenced KV puts: the test sets each lock's current grant; a put is
 * accepted only with that token, like the state machine's check. Not a server, not a model of the
 * state machine: no sessions, no log.
 */
final class ScriptedTenure extends TenureGrpc.TenureImplBase implements AutoCloseable {
    final Map<String, Long> currentGrant = new ConcurrentHashMap<>();
    final Map<String, byte[]> kv = new ConcurrentHashMap<>();
    final AtomicInteger statusCalls = new AtomicInteger();
    private final Server server;

    ScriptedTenure() {
        try {
            server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .addService(this)
                    .build()
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String endpoint() {
        return "127.0.0.1:" + server.getPort();
    }

    @Override
    public void lockStatus(LockStatusRequest request, StreamObserver<LockStatusResponse> reply) {
        statusCalls.incrementAndGet();
        LockStatusResponse.Builder r =
                LockStatusResponse.newBuilder().setCode(Code.CODE_OK).setLock(request.getLock());
        Long token = currentGrant.get(request.getLock());
        if (token != null) {
            r.setHolder(Holder.newBuilder().setSessionId(1).setToken(token).setClientName("scripted"));
        }
        reply.onNext(r.build());
        reply.onCompleted();
    }

    @Override
    public void kvPut(KvPutRequest request, StreamObserver<KvPutResponse> reply) {
        long current = currentGrant.getOrDefault(request.getFence().getLock(), 0L);
        KvPutResponse.Builder r = KvPutResponse.newBuilder();
        if (request.hasFence() && request.getFence().getToken() != current) {
            r.setCode(Code.CODE_STALE_TOKEN).setCurrentToken(current);
        } else {
            kv.put(request.getKey(), request.getValue().toByteArray());
            r.setCode(Code.CODE_OK);
        }
        reply.onNext(r.build());
        reply.onCompleted();
    }

    @Override
    public void close() {
        try {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
