package dev.tenure.sim;

import dev.tenure.core.Command;
import dev.tenure.core.Result;
import dev.tenure.gateway.LogPort;
import dev.tenure.gateway.WireMapping;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * A node's one connection to the cluster, as the server's cluster channel: the gateway's
 * {@link LogPort}. Each command is mapped to the core's by the server's own {@link WireMapping},
 * and each result back to the reply the server would send. Renewals are batched (every renewal
 * of one 10 ms interval becomes one KeepAlive entry, acknowledged only once committed). Answers
 * to what was submitted before the node crashed are dropped; while the node is cut off from the
 * cluster nothing gets through.
 */
final class ClusterLink implements LogPort {
    private static final long RENEW_BATCH_NANOS = Network.ms(10);

    private record Renewal(long sessionId, CompletableFuture<Boolean> alive) {}

    /** What the gateway sees when the log does not answer: its message becomes the call's status. */
    static final class LogUnavailableException extends RuntimeException {
        LogUnavailableException(String why) {
            super(why);
        }
    }

    private final World world;
    private final List<Renewal> renewals = new ArrayList<>();
    private long incarnation;
    private long isolatedUntilNanos;

    ClusterLink(World world) {
        this.world = world;
    }

    @Override
    public CompletableFuture<Reply> submit(LogCommand.Builder builder) {
        LogCommand command = builder.build();
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        submit(WireMapping.toCommand(command), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                reply.complete(WireMapping.toReply(command, result));
            }

            @Override
            public void failed(String why) {
                reply.completeExceptionally(new LogUnavailableException(why));
            }
        });
        return reply;
    }

    /**
     * Submits to the log; answers arriving after this node crashed are dropped. While the node is
     * cut off from the cluster, a submission waits for the link to heal, and fails if that takes
     * longer than the request timeout (as the server's cluster channel does).
     */
    private void submit(Command command, Cluster.Reply reply) {
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

    @Override
    public CompletableFuture<Boolean> renewSession(long sessionId) {
        CompletableFuture<Boolean> alive = new CompletableFuture<>();
        renewals.add(new Renewal(sessionId, alive));
        if (renewals.size() == 1) {
            long batchOf = incarnation;
            world.loop.after(RENEW_BATCH_NANOS, null, () -> {
                if (batchOf == incarnation) {
                    flushRenewals();
                }
            });
        }
        return alive;
    }

    private void flushRenewals() {
        List<Renewal> batch = new ArrayList<>(renewals);
        renewals.clear();
        // In id order, each once, as the server's cluster channel writes a batch.
        TreeSet<Long> ids = new TreeSet<>();
        batch.forEach(r -> ids.add(r.sessionId()));
        submit(new Command.KeepAlive(List.copyOf(ids)), new Cluster.Reply() {
            @Override
            public void done(Result result) {
                List<Long> lost = ((Result.KeepAliveResult) result).lostSessionIds();
                batch.forEach(r -> r.alive().complete(!lost.contains(r.sessionId())));
            }

            @Override
            public void failed(String why) {
                batch.forEach(r -> r.alive().completeExceptionally(new LogUnavailableException(why)));
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
