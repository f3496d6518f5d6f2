package dev.tenure.sim;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.DowngradeRequest;
import dev.tenure.api.v1.KvDeleteRequest;
import dev.tenure.api.v1.KvGetRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.LeaderRequest;
import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.core.Limits;
import dev.tenure.gateway.Gateway;
import dev.tenure.gateway.Mutation;
import dev.tenure.gateway.Scheduler;
import dev.tenure.log.v1.Event;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.TreeMap;

/**
 * One node: the server's own {@link Gateway}, served over the simulated network instead of gRPC,
 * with this node's {@link ClusterLink} as its log and the event loop, on this node's drifting
 * clock, as its scheduler. A node crash loses the gateway's state at once (a new gateway serves
 * after the restart); what it had already submitted may still commit, but the answers go nowhere,
 * and nothing it had scheduled runs.
 */
final class Node {
    final int node;
    private final World world;
    private final TreeMap<Long, ServerCall> calls = new TreeMap<>();
    private final ClusterLink link;
    private Gateway gateway;
    private boolean down;
    /** How many times the node crashed: what was scheduled before a crash must not run after it. */
    private long crashes;
    /** The leader this node last knew before it lost touch with the cluster: what it names meanwhile. */
    private int leaderBeforeIsolation = -1;

    Node(World world, int node) {
        this.world = world;
        this.node = node;
        this.link = new ClusterLink(world);
        this.gateway = newGateway();
    }

    private Gateway newGateway() {
        return new Gateway(
                link,
                new NodeScheduler(crashes),
                Limits.defaults(),
                new Gateway.Listener() {},
                gatewayMutation(),
                world.random.split());
    }

    /** The gateway's own code with one rule broken, where the run's mutation is one of its rules. */
    private Mutation gatewayMutation() {
        return switch (world.config.mutation()) {
            case ACK_BEFORE_COMMIT -> Mutation.ACK_BEFORE_COMMIT;
            case GRACE_NOT_KEPT -> Mutation.GRACE_NOT_KEPT;
            case NONE, NO_TERM_RESTART, ZERO_DRIFT_MARGIN -> Mutation.NONE;
        };
    }

    boolean down() {
        return down;
    }

    // ---- frames from clients ----

    void open(SimCall<?, ?> call) {
        if (down) {
            call.downClose(Status.UNAVAILABLE.withDescription("connection refused: n" + node + " is down"));
            return;
        }
        ServerCall sc = new ServerCall(call, false, () -> calls.remove(call.id));
        calls.put(call.id, sc);
        if (call.attachMany()) {
            sc.serve(gateway.attachMany(sc.responses()));
        } else if (call.carriesCalls()) {
            sc.serve(gateway.calls(sc.responses()));
        } else if (!call.unary()) {
            sc.serve(gateway.attach(sc.responses()));
        }
    }

    void message(SimCall<?, ?> call, Object message) {
        ServerCall sc = calls.get(call.id);
        if (sc == null) {
            return; // opened before this node restarted: that call already failed
        }
        if (sc.stream()) {
            sc.received(message);
        } else {
            unary(sc, message);
        }
    }

    /** The second copy of a unary request. Acquires are not duplicated: see {@link SimCall}. */
    void duplicate(SimCall<?, ?> call, Object message) {
        if (!down && !(message instanceof AcquireRequest)) {
            unary(new ServerCall(call, true, () -> {}), message);
        }
    }

    void halfClosed(SimCall<?, ?> call) {
        ServerCall sc = calls.get(call.id);
        if (sc != null && sc.stream()) {
            calls.remove(call.id);
            sc.halfClosedByClient();
        }
    }

    void cancelled(SimCall<?, ?> call) {
        ServerCall sc = calls.remove(call.id);
        trace("sees " + call.process.name() + " cancel " + call.name() + (sc == null ? " (unknown call)" : ""));
        if (sc != null) {
            sc.cancelledByClient();
        }
    }

    private void unary(ServerCall sc, Object message) {
        if (message instanceof LeaderRequest) {
            world.checker.leaderQuestions++;
            int leader = knownLeader();
            sc.<LeaderResponse>answer()
                    .ok(LeaderResponse.newBuilder()
                            .setLeaderId(leader)
                            .setEndpoint(leader < 0 ? "" : endpoint(leader))
                            .build());
            return;
        }
        if (world.cluster.leader() == node && !world.cluster.electing()) {
            world.checker.callsAtLeader++;
        } else {
            world.checker.callsElsewhere++;
        }
        if (message instanceof AcquireRequest r) {
            gateway.acquire(r, sc.answer());
        } else if (message instanceof ReleaseRequest r) {
            gateway.release(r, sc.answer());
        } else if (message instanceof DowngradeRequest r) {
            gateway.downgrade(r, sc.answer());
        } else if (message instanceof RenewLeaseRequest r) {
            gateway.renewLease(r, sc.answer());
        } else if (message instanceof WriteCheckpointRequest r) {
            gateway.writeCheckpoint(r, sc.answer());
        } else if (message instanceof LockStatusRequest r) {
            gateway.lockStatus(r, sc.answer());
        } else if (message instanceof KvPutRequest r) {
            gateway.kvPut(r, sc.answer());
        } else if (message instanceof KvGetRequest r) {
            gateway.kvGet(r, sc.answer());
        } else if (message instanceof KvDeleteRequest r) {
            gateway.kvDelete(r, sc.answer());
        } else {
            sc.close(Status.UNIMPLEMENTED.withDescription("not simulated: " + message.getClass()));
        }
    }

    /**
     * The leader as this node's cluster channel knows it: none during an election, and while the
     * node is cut off from the cluster the one it knew before, however stale (a real member names
     * the old leader until its own timeouts run out), so clients are sent to a deposed leader too.
     */
    private int knownLeader() {
        if (link.isolated()) {
            return leaderBeforeIsolation;
        }
        return world.cluster.electing() ? -1 : world.cluster.leader();
    }

    /** Node {@code id}'s client endpoint, as every client is given it ({@link ClientProcess}). */
    static String endpoint(int id) {
        return "n" + id + ":" + ClientProcess.PORT;
    }

    /** A trace line about this node: {@code what} it sees or does. */
    void trace(String what) {
        world.trace.add("n" + node + " " + what);
    }

    /** Events reach a node that is up and in touch with the cluster; egress to an unreachable one is lost. */
    void onEvent(Event event) {
        if (!down && !link.isolated()) {
            gateway.onEvent(event);
        }
    }

    // ---- faults ----

    /** The node's process dies: every connection to it is reset and its gateway state is gone. */
    void crash() {
        down = true;
        crashes++;
        link.reset();
        for (ServerCall sc : new ArrayList<>(calls.values())) {
            sc.close(Status.UNAVAILABLE.withDescription("connection reset: n" + node + " crashed"));
        }
        calls.clear();
        gateway = newGateway();
    }

    void restart() {
        down = false;
    }

    /** The node loses touch with the rest of the cluster, while its clients can still reach it. */
    void isolate(long untilNanos) {
        if (!link.isolated()) {
            leaderBeforeIsolation = knownLeader();
        }
        link.isolate(untilNanos);
    }

    boolean isolated() {
        return link.isolated();
    }

    /**
     * A middlebox resets the connections of {@code process} to this node. The node sees every
     * call on them end at once, exactly as when that process dies; the client hears of it
     * {@code clientNoticeNanos} later (0: at once), e.g. when it next sends. Off unless the run asks.
     */
    void reset(ClientProcess process, long clientNoticeNanos) {
        for (ServerCall sc : new ArrayList<>(calls.values())) {
            if (sc.client.process == process) {
                Runnable notice =
                        () -> sc.client.downClose(Status.UNAVAILABLE.withDescription("connection reset by peer"));
                if (clientNoticeNanos == 0) {
                    notice.run();
                } else {
                    world.loop.after(clientNoticeNanos, process, notice);
                }
                cancelled(sc.client);
            }
        }
    }

    /** The event loop on this node's clock, for one incarnation of the node. */
    private final class NodeScheduler implements Scheduler {
        private final long incarnation;

        NodeScheduler(long incarnation) {
            this.incarnation = incarnation;
        }

        @Override
        public void later(long delayMs, Runnable action) {
            long ppm = world.config.nodePpm()[node];
            long realNanos = Network.ms(delayMs) * 1_000_000 / (1_000_000 + ppm);
            world.loop.after(realNanos, null, () -> runIfAlive(action));
        }

        @Override
        public void soon(Runnable action) {
            world.loop.after(0, null, () -> runIfAlive(action));
        }

        private void runIfAlive(Runnable action) {
            if (!down && crashes == incarnation) {
                action.run();
            }
        }
    }
}
