package dev.tenure.server.gateway;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tenure.gateway.LogPort;
import dev.tenure.log.v1.Egress;
import dev.tenure.log.v1.Event;
import dev.tenure.log.v1.KeepAliveBatch;
import dev.tenure.log.v1.KeepAliveBatchResult;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import dev.tenure.server.cluster.ReadIndex;
import dev.tenure.server.fatal.FatalCause;
import dev.tenure.server.fatal.FatalErrors;
import dev.tenure.server.runtime.AdaptiveIdleStrategy;
import dev.tenure.server.runtime.AgentWakeup;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.logbuffer.Header;
import io.aeron.security.AuthenticationException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongHashSet;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The gateway's one connection into the cluster: a single Aeron Cluster client that every
 * connected session's requests are multiplexed onto. One agent thread owns the Aeron client (it
 * is not thread-safe); other threads hand it work through a queue and get a future back.
 *
 * <p>Fail fast: a request that the cluster has not answered within the request timeout fails
 * with {@link ClusterUnavailableException}; the client may retry it with the same request id,
 * which the state machine turns into a no-op if the first attempt did land.
 */
final class ClusterChannel implements LogPort, ReadIndex.Gateway, AutoCloseable {

    private static final long KEEPALIVE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final long TIMEOUT_SCAN_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * How long after the cluster refused this node's credentials it asks again: the operator may
     * fix the secret file and restart a member, but a tight loop of refused connects would only
     * load the leader.
     */
    private static final long REFUSED_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final AeronCluster.Context template;
    private final AgentInvoker aeronConductor;
    private final long requestTimeoutNanos;
    private final long renewBatchNanos;
    private final Consumer<Event> events;
    private final ConcurrentLinkedQueue<Pending> submissions = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Renewal> renewals = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    /** A read waits for a command of this channel's: the next pass sends one, a barrier if nothing else. */
    private final AtomicBoolean barrierWanted = new AtomicBoolean();

    private final LongAdder barriersSent = new LongAdder();

    private final AgentWakeup wakeup;
    private final IdleStrategy idle;
    private final Thread agent;

    // Owned by the agent thread.
    private final Long2ObjectHashMap<Pending> inFlight = new Long2ObjectHashMap<>();
    private final ArrayDeque<Pending> unsent = new ArrayDeque<>();
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(new byte[0]);
    private @Nullable AeronCluster cluster; // null until connected, and again once disconnected
    private AeronCluster.@Nullable AsyncConnect connecting; // null unless a connection is under way
    /**
     * Taken by the agent thread only; shared because the read index reads it on gateway threads:
     * each id is taken before its command is offered, so a read that sees id n knows every
     * command sent before it arrived carries less.
     */
    private final AtomicLong nextCorrelationId = new AtomicLong(1);

    private long nextKeepAliveNanos;
    private long nextTimeoutScanNanos;
    private long nextRenewFlushNanos;
    private long nextConnectNanos;
    private int reportedInFlight;

    private volatile boolean connected;
    private volatile boolean credentialsRefused;
    private volatile int leaderMemberId = -1;
    /** The cluster session this channel's commands arrive on; 0 while not connected. */
    private volatile long sessionId;

    private volatile long lastReplyNanos;

    ClusterChannel(
            AeronCluster.Context template,
            AgentInvoker aeronConductor,
            long requestTimeoutNanos,
            long renewBatchNanos,
            Consumer<Event> events,
            AgentWakeup wakeup,
            FatalErrors fatalErrors) {
        this.template = template;
        this.aeronConductor = aeronConductor;
        this.wakeup = wakeup;
        this.idle = AdaptiveIdleStrategy.standard(wakeup, AgentWakeup.Hop.GATEWAY);
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.renewBatchNanos = renewBatchNanos;
        this.events = events;
        // Every request of every client goes through this thread: if it ends, the node answers
        // nothing but timeouts while looking alive, so its end is the node's.
        this.agent = new Thread(fatalErrors.watched(FatalCause.GATEWAY_STOPPED, this::run), "tenure-gateway-cluster");
        this.agent.setDaemon(true);
    }

    /** Hears, on the agent's thread, each reply's time from submission (ns): the commit histogram. */
    private volatile LongConsumer committed = nanos -> {};

    void start() {
        agent.start();
    }

    /** From now on, {@code committed} hears each reply's time from its command's submission. */
    void onCommitted(LongConsumer committed) {
        this.committed = committed;
    }

    /** Fails with {@link ClusterUnavailableException} when the cluster did not answer in time. */
    @Override
    public CompletableFuture<Reply> submit(LogCommand.Builder command) {
        long now = System.nanoTime();
        Pending pending = new Pending(command, now, now + requestTimeoutNanos);
        submissions.add(pending);
        idleWake();
        return pending.future;
    }

    /**
     * Queues a renewal; the agent writes every renewal of one batching interval as a single log
     * entry, and completes each renewal's future with that entry's outcome.
     */
    @Override
    public CompletableFuture<Boolean> renewSession(long sessionId) {
        Renewal renewal = new Renewal(sessionId, new CompletableFuture<>());
        renewals.add(renewal);
        return renewal.result;
    }

    boolean connected() {
        return connected;
    }

    @Override
    public long sessionId() {
        return sessionId;
    }

    @Override
    public long nextCorrelationId() {
        return nextCorrelationId.get();
    }

    /** Read barriers queued since the node started (for the node's metrics). */
    long barriersSent() {
        return barriersSent.sum();
    }

    @Override
    public void wantBarrier() {
        if (!barrierWanted.getAndSet(true)) {
            idleWake();
        }
    }

    int leaderMemberId() {
        return leaderMemberId;
    }

    /** The cluster's last answer to this node's connect was a refusal of its credentials. */
    boolean credentialsRefused() {
        return credentialsRefused;
    }

    long lastReplyNanos() {
        return lastReplyNanos;
    }

    private void idleWake() {
        java.util.concurrent.locks.LockSupport.unpark(agent);
    }

    private void run() {
        while (running.get()) {
            long now = System.nanoTime();
            // The conductor's housekeeping (keepalives to the driver) is not work that should keep
            // this agent hot.
            aeronConductor.invoke();
            int work = 0;
            if (cluster == null) {
                work += connect(now);
            } else {
                work += send(cluster);
                work += cluster.pollEgress();
                work += flushRenewals(now);
                if (now >= nextKeepAliveNanos) {
                    cluster.sendKeepAlive();
                    nextKeepAliveNanos = now + KEEPALIVE_INTERVAL_NANOS;
                }
                if (cluster.isClosed()) {
                    disconnected("cluster session closed");
                }
            }
            if (now >= nextTimeoutScanNanos) {
                work += failTimedOut(now);
                nextTimeoutScanNanos = now + TIMEOUT_SCAN_NANOS;
            }
            if (inFlight.size() != reportedInFlight) {
                reportedInFlight = inFlight.size();
                wakeup.inFlight(reportedInFlight);
            }
            idle.idle(work);
        }
        closeCluster();
        failAll("gateway shutting down");
        wakeup.inFlight(0);
    }

    private int connect(long now) {
        drainSubmissions();
        if (now - nextConnectNanos < 0) {
            return 0;
        }
        try {
            if (connecting == null) {
                connecting = AeronCluster.asyncConnect(template.clone().egressListener(new Listener()));
            }
            AeronCluster c = connecting.poll();
            if (c == null) {
                return 0;
            }
            connecting = null;
            cluster = c;
            sessionId = c.clusterSessionId();
            connected = true;
            credentialsRefused = false;
            leaderMemberId = c.leaderMemberId();
            return 1;
        } catch (AuthenticationException e) {
            // The leader's consensus module refused this node's cluster secret (or its lack of
            // one): the members were given different --cluster-secret-file contents.
            credentialsRefused = true;
            nextConnectNanos = now + REFUSED_RETRY_NANOS;
            abandonConnect();
            return 0;
        } catch (RuntimeException e) {
            // Typically a timeout while no leader is elected; try again from scratch.
            abandonConnect();
            return 0;
        }
    }

    private void abandonConnect() {
        if (connecting != null) {
            connecting.close();
        }
        connecting = null;
    }

    private void drainSubmissions() {
        Pending p;
        while ((p = submissions.poll()) != null) {
            unsent.add(p);
        }
    }

    private int send(AeronCluster to) {
        drainSubmissions();
        // Before this pass takes any id: a read that asked before now needs a command whose id is
        // taken after its arrival, which the first one sent below is; a barrier only if none is.
        if (barrierWanted.getAndSet(false) && unsent.isEmpty()) {
            long now = System.nanoTime();
            barriersSent.increment();
            unsent.add(new Pending(
                    LogCommand.newBuilder().setKeepAlive(KeepAliveBatch.getDefaultInstance()),
                    now,
                    now + requestTimeoutNanos));
        }
        int sent = 0;
        while (!unsent.isEmpty()) {
            Pending p = unsent.peek();
            long correlationId = nextCorrelationId.getAndIncrement();
            byte[] bytes = p.command.setCorrelationId(correlationId).build().toByteArray();
            sendBuffer.wrap(bytes);
            long result = to.offer(sendBuffer, 0, bytes.length);
            if (result < 0) {
                // Back pressure or a leader change in progress: keep it queued until it times out.
                break;
            }
            unsent.poll();
            inFlight.put(correlationId, p);
            sent++;
        }
        if (sent > 0) {
            wakeup.handedToLog();
        }
        return sent;
    }

    private int flushRenewals(long now) {
        if (now < nextRenewFlushNanos || renewals.isEmpty()) {
            return 0;
        }
        nextRenewFlushNanos = now + renewBatchNanos;
        // Unboxed: a burst of renewals is one per session of every client, 10,000 for 10,000
        // held sessions, and this runs on the thread that also carries every reply. In id order,
        // so that the service moves the sessions' deadlines through its sorted indexes in order,
        // not at random places.
        List<Renewal> batch = new ArrayList<>();
        LongHashSet ids = new LongHashSet();
        Renewal r;
        while ((r = renewals.poll()) != null) {
            batch.add(r);
            ids.add(r.sessionId);
        }
        long[] sorted = new long[ids.size()];
        int n = 0;
        for (LongHashSet.LongIterator it = ids.iterator(); it.hasNext(); ) {
            sorted[n++] = it.nextValue();
        }
        Arrays.sort(sorted);
        KeepAliveBatch.Builder command = KeepAliveBatch.newBuilder();
        for (long id : sorted) {
            command.addSessionIds(id);
        }
        Pending pending = new Pending(LogCommand.newBuilder().setKeepAlive(command), now, now + requestTimeoutNanos);
        // The callback handles the error; what whenComplete returns adds nothing to wait for.
        var unused = pending.future.whenComplete((reply, error) -> {
            LongHashSet lost = new LongHashSet();
            if (error == null) {
                KeepAliveBatchResult keepAlive = reply.getKeepAlive();
                for (int i = 0; i < keepAlive.getLostSessionIdsCount(); i++) {
                    lost.add(keepAlive.getLostSessionIds(i));
                }
            }
            for (Renewal each : batch) {
                if (error != null) {
                    each.result.completeExceptionally(error);
                } else {
                    each.result.complete(!lost.contains(each.sessionId));
                }
            }
        });
        // First in line: a keepalive behind a burst of bulk writes would reach the log late, and a
        // holder whose renewal is late counts its lease lost.
        unsent.addFirst(pending);
        return 1;
    }

    private int failTimedOut(long now) {
        int failed = 0;
        var it = inFlight.values().iterator();
        while (it.hasNext()) {
            Pending p = it.next();
            if (now - p.deadlineNanos >= 0) {
                it.remove();
                p.future.completeExceptionally(new ClusterUnavailableException("no answer from the cluster in time"));
                failed++;
            }
        }
        var unsentIt = unsent.iterator();
        while (unsentIt.hasNext()) {
            Pending p = unsentIt.next();
            if (now - p.deadlineNanos >= 0) {
                unsentIt.remove();
                p.future.completeExceptionally(new ClusterUnavailableException(
                        connected ? "cluster did not accept the request in time" : "no cluster leader reachable"));
                failed++;
            }
        }
        return failed;
    }

    private void disconnected(String why) {
        closeCluster();
        connected = false;
        sessionId = 0;
        leaderMemberId = -1;
        // Requests already sent may or may not have landed; failing them lets the client retry
        // with the same request id, which is safe either way.
        for (Pending p : inFlight.values()) {
            p.future.completeExceptionally(new ClusterUnavailableException(why));
        }
        inFlight.clear();
    }

    private void closeCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
        if (connecting != null) {
            connecting.close();
            connecting = null;
        }
    }

    private void failAll(String why) {
        drainSubmissions();
        for (Pending p : unsent) {
            p.future.completeExceptionally(new ClusterUnavailableException(why));
        }
        unsent.clear();
        for (Pending p : inFlight.values()) {
            p.future.completeExceptionally(new ClusterUnavailableException(why));
        }
        inFlight.clear();
        Renewal r;
        while ((r = renewals.poll()) != null) {
            r.result.completeExceptionally(new ClusterUnavailableException(why));
        }
    }

    @Override
    public void close() {
        running.set(false);
        idleWake();
        try {
            agent.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Listener implements EgressListener {
        @Override
        public void onMessage(
                long clusterSessionId, long timestamp, DirectBuffer buffer, int offset, int length, Header header) {
            Egress egress;
            try {
                byte[] bytes = new byte[length];
                buffer.getBytes(offset, bytes);
                egress = Egress.parseFrom(bytes);
            } catch (InvalidProtocolBufferException e) {
                return;
            }
            lastReplyNanos = System.nanoTime();
            if (egress.hasReply()) {
                Pending p = inFlight.remove(egress.getReply().getCorrelationId());
                if (p != null) {
                    committed.accept(lastReplyNanos - p.submittedNanos);
                    p.future.complete(egress.getReply());
                }
            } else if (egress.hasEvent()) {
                events.accept(egress.getEvent());
            }
        }

        @Override
        public void onNewLeader(
                long clusterSessionId, long leadershipTermId, int leaderMemberId, String ingressEndpoints) {
            ClusterChannel.this.leaderMemberId = leaderMemberId;
            // Requests sent to the old leader may never be answered. Failing them now lets
            // each client retry at once with the same request id (a no-op for any that did
            // commit) instead of waiting out the request timeout.
            for (Pending p : inFlight.values()) {
                p.future.completeExceptionally(
                        new ClusterUnavailableException("leader changed to member " + leaderMemberId + "; retry"));
            }
            inFlight.clear();
        }
    }

    private static final class Pending {
        final LogCommand.Builder command;
        final long submittedNanos;
        final long deadlineNanos;
        final CompletableFuture<Reply> future = new CompletableFuture<>();

        Pending(LogCommand.Builder command, long submittedNanos, long deadlineNanos) {
            this.command = command;
            this.submittedNanos = submittedNanos;
            this.deadlineNanos = deadlineNanos;
        }
    }

    private record Renewal(long sessionId, CompletableFuture<Boolean> result) {}
}
