package dev.tenure.sim;

import dev.tenure.core.Command;
import dev.tenure.core.Result;
import java.util.ArrayList;
import java.util.List;

/**
 * A node's one connection to the cluster, as the server's cluster channel: submissions and their
 * answers, and keepalive batching (every renewal of one 10 ms interval becomes one KeepAlive
 * entry, acknowledged only once committed). Answers to what was submitted before the node crashed
 * are dropped; while the node is cut off from the cluster nothing gets through.
 */
final class ClusterLink {
    private static final long RENEW_BATCH_NANOS = Network.ms(10);

    /** The outcome of one renewal: alive once committed, or failed (leader change, timeout). */
    interface RenewReply {
        void alive(boolean alive);

        void failed(String why);
    }

    private record Renewal(long sessionId, RenewReply reply) {}

    private final World world;
    private final List<Renewal> renewals = new ArrayList<>();
    private long incarnation;
    private long isolatedUntilNanos;

    ClusterLink(World world) {
        this.world = world;
    }

    /**
     * Submits to the log; answers arriving after this node crashed are dropped. While the node is
     * cut off from the cluster, a submission waits for the link to heal, and fails if that takes
     * longer than the request timeout (as the server's cluster channel does).
     */
    void submit(Command command, Cluster.Reply reply) {
        long now = world.loop.nowNanos();
        if (isolatedUntilNanos > now) {
            long submittedBy = incarnation;
            if (isolatedUntilNanos - now < Cluster.SUBMIT_TIMEOUT_NANOS) {
                world.loop.at(isolatedUntilNanos, null, () -> {
                    if (submittedBy == incarnation) {
                        submit(command, reply);
                    }
                });
            } else {
                world.loop.after(Cluster.SUBMIT_TIMEOUT_NANOS, null, () -> {
                    if (submittedBy == incarnation) {
                        reply.failed("no cluster leader reachable");
                    }
                });
            }
            return;
        }
        long submittedBy = incarnation;
        world.cluster.submit(command, new Cluster.Reply() {
            @Override
            public void done(Result result) {
                if (submittedBy == incarnation) {
                    reply.done(result);
                }
            }

            @Override
            public void failed(String why) {
                if (submittedBy == incarnation) {
                    reply.failed(why);
                }
            }
        });
    }

    void renew(long sessionId, RenewReply reply) {
        renewals.add(new Renewal(sessionId, reply));
        if (renewals.size() == 1) {
            long batchOf = incarnation;
            world.loop.after(RENEW_BATCH_NANOS, null, () -> {
                if (batchOf == incarnation) {
                    flushRenewals();
                }
            });
        }
    }

    private void flushRenewals() {
        List<Renewal> batch = new ArrayList<>(renewals);
        renewals.clear();
        List<Long> ids = new ArrayList<>();
        batch.forEach(r -> ids.add(r.sessionId()));
        submit(new Command.KeepAlive(ids), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                List<Long> lost = ((Result.KeepAliveResult) result).lostSessionIds();
                batch.forEach(r -> r.reply().alive(!lost.contains(r.sessionId())));
            }

            @Override
            public void failed(String why) {
                batch.forEach(r -> r.reply().failed(why));
            }
        });
    }

    /** The node crashed: nothing submitted before is answered, no renewal waiting is sent. */
    void reset() {
        incarnation++;
        renewals.clear();
    }

    void isolate(long untilNanos) {
        isolatedUntilNanos = Math.max(isolatedUntilNanos, untilNanos);
    }

    boolean isolated() {
        return isolatedUntilNanos > world.loop.nowNanos();
    }
}
