package dev.tenure.sim;

import dev.tenure.client.TenureClient;
import dev.tenure.client.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * One client process: the real {@link TenureClient} on a drifting {@link SimClock} and simulated
 * channels, and the {@link App} that uses it. A pause freezes its timers and its network input
 * (the loop holds its events); a crash stops it for good, with or without its kernel closing its
 * connections. A restarted client is a new process in the same slot (same machine, same drift).
 */
final class ClientProcess implements EventLoop.Host {
    static final int PORT = 7100;

    final int slot;
    final int incarnation;
    final SimClock clock;
    final App app;
    private final World world;
    private final TenureClient client;
    private final TreeMap<Long, SimCall<?, ?>> openCalls = new TreeMap<>();
    private boolean crashed;
    private long pausedUntilNanos;

    ClientProcess(World world, int slot, int incarnation) {
        this.world = world;
        this.slot = slot;
        this.incarnation = incarnation;
        // An arbitrary origin per process: only differences of nanoTime() mean anything.
        this.clock = new SimClock(
                world.loop,
                this,
                world.config.clientPpm()[slot],
                world.random.nextLong(1L << 50),
                world.random.split());
        TenureClient.Builder builder = TenureClient.builder()
                .endpoints(endpoints())
                .sessionTtl(Duration.ofMillis(world.config.ttlMs()))
                .disconnectGrace(Duration.ofMillis(world.config.graceMs()))
                .requestTimeout(Duration.ofMillis(3 * world.config.ttlMs()))
                .clientName(name());
        Transport.timeSource(builder, clock);
        if (world.config.mutation() == SimConfig.Mutation.ZERO_DRIFT_MARGIN) {
            builder.driftMargin(Duration.ZERO);
        }
        // Unary calls: the simulated network loses and duplicates them call by call. Not the Calls
        // stream yet: the client times a carried call's deadline from gRPC's Deadline, which reads
        // the system clock, so a run would not replay (Node serves Calls for when it can).
        Transport.channelFactory(builder, target -> new SimChannel(world, this, node(target)));
        this.client = Transport.unaryCalls(builder, true).build();
        this.app = new App(world, this);
    }

    /** Every process lists the nodes from a different first one, so they spread over the gateways. */
    private List<String> endpoints() {
        int first = world.random.nextInt(world.config.nodes());
        List<String> out = new ArrayList<>();
        for (int i = 0; i < world.config.nodes(); i++) {
            out.add(Node.endpoint((first + i) % world.config.nodes()));
        }
        return out;
    }

    private static int node(String target) {
        return Integer.parseInt(target.substring(1, target.indexOf(':')));
    }

    String name() {
        return "c" + slot + (incarnation == 0 ? "" : "." + incarnation);
    }

    TenureClient client() {
        return client;
    }

    SimChannel channel(int node) {
        return new SimChannel(world, this, node);
    }

    void track(SimCall<?, ?> call) {
        openCalls.put(call.id, call);
    }

    void untrack(SimCall<?, ?> call) {
        openCalls.remove(call.id);
    }

    @Override
    public boolean crashed() {
        return crashed;
    }

    @Override
    public long pausedUntilNanos() {
        return pausedUntilNanos;
    }

    void pause(long nanos) {
        pausedUntilNanos = Math.max(pausedUntilNanos, world.loop.nowNanos() + nanos);
    }

    /**
     * The process dies. {@code silent}: its machine vanished and nobody closes its connections
     * (the server must wait for the TTL); else its kernel closes them and each node sees its calls
     * end (the server ends the session at once).
     */
    void crash(boolean silent) {
        crashed = true;
        if (!silent) {
            for (SimCall<?, ?> call : new ArrayList<>(openCalls.values())) {
                call.connectionClosedByCrash();
            }
        }
        openCalls.clear();
    }
}
