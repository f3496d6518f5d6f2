package dev.tenure.sim;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import java.util.concurrent.TimeUnit;

/**
 * A client process's channel to one node: it makes {@link SimCall}s. Call options are ignored;
 * in particular deadlines, which gRPC measures on the system clock (see {@link SimCall}).
 */
final class SimChannel extends ManagedChannel {
    private final World world;
    private final ClientProcess process;
    private final int node;

    SimChannel(World world, ClientProcess process, int node) {
        this.world = world;
        this.process = process;
        this.node = node;
    }

    @Override
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
        SimCall<Q, R> call = new SimCall<>(world, process, node, method);
        process.track(call);
        return call;
    }

    @Override
    public String authority() {
        return "n" + node;
    }

    @Override
    public ManagedChannel shutdown() {
        return this;
    }

    @Override
    public boolean isShutdown() {
        return false;
    }

    @Override
    public boolean isTerminated() {
        return false;
    }

    @Override
    public ManagedChannel shutdownNow() {
        return this;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return true;
    }
}
