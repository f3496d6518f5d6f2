package dev.tenure.server.cluster;

import dev.tenure.gateway.ReadPort;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Linearizable reads without a log entry each: a read is answered from this node's replica once
 * the replica has applied an entry that this node's gateway sent after the read arrived.
 *
 * <p>Why that is current: the entry was appended after the read arrived, and it is committed (a
 * replica applies nothing else). A write committed before the read arrived is in the log of every
 * leader that can still commit, ahead of anything it appends later: a leader that was deposed
 * before the write committed can no longer commit at all, because the quorum that committed the
 * write, or acknowledged its new leader, refuses it. So the entry follows every such write in the
 * log, and the state right after it shows them all. Nothing here reads another node's clock or
 * counts on a lease: no clock-drift bound is assumed, and a node partitioned away simply never
 * sees its entry committed (its reads time out as its writes do).
 *
 * <p>Which entries count: any command of this node's gateway, matched by its cluster session and
 * a correlation id the gateway assigned after the read arrived (ids grow for the process's life).
 * The writes and renewals the gateway sends anyway release waiting reads; only when it has nothing
 * else to send does it send a read barrier (an empty keepalive batch: every release of Tenure
 * applies it as a no-op, so a cluster of mixed releases reads it alike). Every read that arrived
 * before the gateway's next send shares that command. A read therefore costs at most one small
 * entry, and none while the node writes anyway; it waits one commit, as a read through the log did.
 *
 * <p>With a read lease ({@link ReadLease}, opt-in), a read on the leader need not wait for an
 * entry at all: while the lease is proven, the service thread answers it as soon as its replica has
 * applied everything committed when the read arrived (the commit position counter, read on
 * arrival), and the reads and probes it releases keep proving the lease, about one entry per
 * half lease however many reads come.
 *
 * <p>Threads: gateway threads call {@link #read}; the service thread calls {@link #applied} after
 * every entry it applies, and {@link #expire} when idle; answers are handed to one thread of their
 * own, so a client's slow stream never holds the service thread.
 */
public final class ReadIndex implements ReadPort, AutoCloseable {

    /** This node's gateway's link into the cluster, as the read index needs it. */
    public interface Gateway {
        /** The cluster session the gateway's commands arrive on now; 0 while not connected. */
        long sessionId();

        /** The correlation id the gateway's next command will carry: every one sent so far is below it. */
        long nextCorrelationId();

        /**
         * Makes sure a command of the gateway's own takes an id at or above {@link
         * #nextCorrelationId} as read before this call, and goes into the log soon: the next one
         * the gateway sends anyway, or else a read barrier.
         */
        void wantBarrier();
    }

    private static final Gateway NOT_CONNECTED = new Gateway() {
        @Override
        public long sessionId() {
            return 0;
        }

        @Override
        public long nextCorrelationId() {
            return 0;
        }

        @Override
        public void wantBarrier() {}
    };

    /** A read no entry proved current: the gateway answers it UNAVAILABLE, with this message. */
    static final class Unproven extends RuntimeException {
        Unproven(String message) {
            super(message, null, false, false);
        }
    }

    /** How often a barrier is asked for again while reads wait: a lost one is not missed for long. */
    private static final long RETRY_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);

    private final long timeoutNanos;
    private final LongSupplier clock;
    private final ConcurrentLinkedQueue<Waiting> arrived = new ConcurrentLinkedQueue<>();
    private final ReadLease lease = new ReadLease();
    /** The cluster's commit position as this node's consensus module counts it; none until the service started. */
    private volatile LongSupplier commitPosition = () -> Long.MAX_VALUE;
    /** Unparks the service thread, so that a read the lease answers does not wait out its park. */
    private volatile Runnable wakeService = () -> {};

    private final ExecutorService answering;
    private final LongAdder answered = new LongAdder();
    private final LongAdder leased = new LongAdder();
    private volatile Gateway gateway = NOT_CONNECTED;
    private volatile boolean leading;

    // Owned by the service thread.
    private final List<Waiting> waiting = new ArrayList<>();
    /** The highest correlation id of this gateway's commands the replica has applied. */
    private long appliedMark;

    private long lastRetryNanos;
    /** The lease's own probe in flight: taken at {@code probeNanos}, proven by an entry at or above {@code probeNeeded}. */
    private boolean probing;

    private long probeNanos;
    private long probeNeeded;
    /** Reads waiting that asked for no barrier when they arrived, because the lease looked likely to answer them. */
    private int unasked;

    /**
     * A read: when it arrived (a probe of the lease, taken before {@code needed}), the correlation
     * id whose entry releases it, the commit position when it arrived (what the lease answers it
     * after), and when it stops waiting.
     */
    private record Waiting(
            LogCommand command,
            long arrivedNanos,
            long needed,
            long committed,
            long deadlineNanos,
            boolean barrierAsked,
            CompletableFuture<Reply> answer) {}

    /** A read that no entry released within {@code timeoutNanos} fails as a command that got no answer would. */
    public ReadIndex(long timeoutNanos) {
        this(timeoutNanos, System::nanoTime);
    }

    /** As above, timed by {@code clock} (nanoseconds, monotonic). */
    ReadIndex(long timeoutNanos, LongSupplier clock) {
        this.timeoutNanos = timeoutNanos;
        this.clock = clock;
        this.answering = Executors.newSingleThreadExecutor(task -> {
            Thread t = new Thread(task, "tenure-read-answers");
            t.setDaemon(true);
            return t;
        });
    }

    /** From now on, barriers go through {@code gateway}, whose commands release reads. */
    public void gateway(Gateway gateway) {
        this.gateway = gateway;
    }

    /**
     * Only while this node leads. A follower's replica hears of a commit one message after the
     * leader's, and its service thread may be parked meanwhile: a lone client's reads on a
     * follower took about twice as long as through the log, where the leader answers as it
     * applies. A follower's reads go through the log.
     */
    @Override
    public boolean serving() {
        return leading;
    }

    /** On the service thread, when this node's role changes: whether it now leads. */
    void leading(boolean leading) {
        this.leading = leading;
        lease.role(leading, clock.getAsLong());
    }

    /** The lease, which the service thread tells of terms, roles and limits. */
    ReadLease lease() {
        return lease;
    }

    /** Where reads find the cluster's commit position when they arrive (set by the service when it starts). */
    void commitPosition(LongSupplier commitPosition) {
        this.commitPosition = commitPosition;
    }

    /** How a read that the lease may answer wakes the service thread. */
    public void wakeService(Runnable wakeService) {
        this.wakeService = wakeService;
    }

    @Override
    public CompletableFuture<Reply> read(LogCommand.Builder read) {
        Gateway to = gateway;
        // The time before the id: the entry that releases this read was then given its id after it.
        long now = clock.getAsLong();
        long needed = to.nextCorrelationId();
        CompletableFuture<Reply> answer = new CompletableFuture<>();
        if (to.sessionId() == 0) {
            answer.completeExceptionally(new Unproven("no cluster leader reachable"));
            return answer;
        }
        boolean byLease = lease.mayServe(now);
        arrived.add(new Waiting(
                read.build(), now, needed, commitPosition.getAsLong(), now + timeoutNanos, !byLease, answer));
        if (byLease) {
            wakeService.run();
        } else {
            to.wantBarrier();
        }
        return answer;
    }

    /**
     * On the service thread, after it applied a command of cluster session {@code sessionId} with
     * {@code correlationId}: answers, with {@code serve}, every waiting read that entry releases,
     * from the state right after it.
     */
    void applied(long sessionId, long correlationId, long appliedPosition, Function<LogCommand, Reply> serve) {
        if (sessionId != gateway.sessionId()) {
            return;
        }
        appliedMark = Math.max(appliedMark, correlationId);
        drain();
        if (probing && probeNeeded <= appliedMark) {
            probing = false;
            lease.proved(probeNanos);
        }
        for (Waiting w : waiting) {
            if (w.needed <= appliedMark) {
                lease.proved(w.arrivedNanos);
            }
        }
        serve(appliedPosition, serve);
    }

    /**
     * Answers every waiting read that an applied entry released, or that the lease lets be
     * answered now that the replica applied {@code appliedPosition}: none in a quiet period.
     */
    private void serve(long appliedPosition, Function<LogCommand, Reply> serve) {
        if (waiting.isEmpty()) {
            return;
        }
        long nowNanos = clock.getAsLong();
        if (lease.mayBeQuiet() && lease.quiet(nowNanos)) {
            return;
        }
        boolean byLease = lease.valid(nowNanos);
        int kept = 0;
        int servedByLease = 0;
        for (int i = 0; i < waiting.size(); i++) {
            Waiting w = waiting.get(i);
            boolean released = w.needed <= appliedMark;
            if (released || (byLease && w.committed <= appliedPosition)) {
                Reply reply = serve.apply(w.command);
                answered.increment();
                if (!released) {
                    servedByLease++;
                }
                answer(() -> w.answer.complete(reply));
            } else {
                waiting.set(kept++, w);
            }
        }
        waiting.subList(kept, waiting.size()).clear();
        if (servedByLease > 0) {
            leased.add(servedByLease);
            if (!probing && lease.renewalDue(nowNanos)) {
                probing = true;
                probeNanos = nowNanos;
                probeNeeded = gateway.nextCorrelationId();
                gateway.wantBarrier();
            }
        }
        if (unasked > 0 && !byLease && !waiting.isEmpty()) {
            // Reads that the lease looked likely to answer asked for no barrier: it did not.
            unasked = 0;
            gateway.wantBarrier();
        }
    }

    /**
     * On the service thread, when it has nothing to apply: fails every read whose deadline passed
     * by {@code nowNanos}, and asks for a barrier again while reads wait (the last one may have been
     * lost to a leader change), at most every {@link #RETRY_NANOS}. Returns how many reads it failed.
     */
    int expire(long nowNanos, long appliedPosition, Function<LogCommand, Reply> serve) {
        drain();
        if (lease.enabled() || lease.mayBeQuiet()) {
            serve(appliedPosition, serve);
            if (probing && nowNanos - probeNanos >= timeoutNanos) {
                // Lost to a change of leader: the next read served by the lease takes another.
                probing = false;
            }
        }
        int kept = 0;
        int failed = 0;
        for (int i = 0; i < waiting.size(); i++) {
            Waiting w = waiting.get(i);
            if (nowNanos - w.deadlineNanos >= 0) {
                answer(() -> w.answer.completeExceptionally(
                        new Unproven("no entry of this node's reached the log in time to prove the read current")));
                failed++;
            } else {
                waiting.set(kept++, w);
            }
        }
        waiting.subList(kept, waiting.size()).clear();
        if (!waiting.isEmpty() && nowNanos - lastRetryNanos >= RETRY_NANOS) {
            lastRetryNanos = nowNanos;
            gateway.wantBarrier();
        }
        return failed;
    }

    /** How many reads this index has answered since the node started (for the node's metrics). */
    public long answered() {
        return answered.sum();
    }

    /** How many of those the lease answered, without an entry of the log after they arrived. */
    public long leased() {
        return leased.sum();
    }

    /** How many reads wait, as the service thread last counted them. */
    int waitingCount() {
        return waiting.size();
    }

    private void drain() {
        @Nullable Waiting w;
        while ((w = arrived.poll()) != null) {
            waiting.add(w);
            if (!w.barrierAsked) {
                unasked++;
            }
        }
    }

    private void answer(Runnable task) {
        try {
            answering.execute(task);
        } catch (RejectedExecutionException closed) {
            // The node is stopping; its gRPC server ends the calls.
        }
    }

    @Override
    public void close() {
        answering.shutdown();
    }
}
