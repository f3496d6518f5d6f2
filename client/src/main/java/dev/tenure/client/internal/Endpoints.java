package dev.tenure.client.internal;

import dev.tenure.api.v1.LeaderRequest;
import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.spi.TimeSource;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The cluster's gateway endpoints, one lazily created channel each, and which one requests try
 * first. Any node's gateway serves any request (it forwards to the log), so failover is simply
 * "try the next one"; calls try the leader's first once it is known ({@link #callTarget}).
 */
public final class Endpoints implements AutoCloseable {
    /** How long {@link #learnLeader} waits for its answer; calls go to the preferred endpoint meanwhile. */
    static final long LEADER_DEADLINE_MS = 1_000;
    /** How soon {@link #learnLeader} asks again a node that knew no leader. */
    static final long LEADER_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How soon {@link #learnLeader} asks again after an answer. A leadership change that fails no
     * call (the old leader alive, now a follower) would otherwise leave calls on a follower's
     * gateway, a hop longer, for the client's life.
     */
    static final long LEADER_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final List<String> targets;
    private final Function<String, ManagedChannel> channelFactory;
    private final ManagedChannel[] channels; // guarded by this
    private final Heard[] heard; // guarded by this: one per channel, replaced with it
    /** Per endpoint: see {@link Heard#silentPredecessorsAfter()}. Guarded by this. */
    private final int[] silentPredecessors;

    private final @Nullable CallMux @Nullable [] muxes; // guarded by this; null when calls travel unary
    private final TimeSource time;
    private volatile CallMux.Proofs proofs = (channel, sessionId, sentNanos) -> {};
    private final AtomicInteger preferred = new AtomicInteger();
    /** The leader's endpoint, -1 while no node named one of these: see {@link #callTarget}. */
    private final AtomicInteger leader = new AtomicInteger(-1);
    /** A {@link #learnLeader} question in flight, or one scheduled. */
    private final AtomicBoolean asking = new AtomicBoolean();
    /** The next question after an answer: see {@link #LEADER_RECHECK_NANOS}. Guarded by this. */
    private TimeSource.@Nullable Cancellable recheck;
    /** Channels replaced and not yet shut down: see {@link #replace}. Guarded by this. */
    private final List<ManagedChannel> retiring = new ArrayList<>();

    private boolean closed; // guarded by this

    /**
     * @param carryCalls carry unary calls on a Calls stream per node ({@link CallMux}), or make
     *     them as unary calls
     * @param time the clock of carried calls' deadlines
     */
    public Endpoints(
            List<String> targets,
            Function<String, ManagedChannel> channelFactory,
            boolean carryCalls,
            TimeSource time) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("at least one endpoint is required");
        }
        this.targets = List.copyOf(targets);
        this.channelFactory = channelFactory;
        this.channels = new ManagedChannel[targets.size()];
        this.heard = new Heard[targets.size()];
        this.silentPredecessors = new int[targets.size()];
        this.muxes = carryCalls ? new CallMux[targets.size()] : null;
        this.time = time;
    }

    /** Parses "host:port,host:port"; blanks around commas are ignored. */
    public static List<String> parse(String csv) {
        List<String> out = new ArrayList<>();
        for (String part : csv.split(",", -1)) {
            String t = part.trim();
            if (!t.isEmpty()) {
                out.add(validate(t));
            }
        }
        return out;
    }

    /** Checks one "host:port" (IPv6 hosts in brackets); returns it unchanged. */
    public static String validate(String target) {
        int colon = target.lastIndexOf(':');
        if (colon <= 0 || colon == target.length() - 1) {
            throw new IllegalArgumentException("endpoint '" + target + "' is not host:port");
        }
        try {
            int port = Integer.parseInt(target.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("endpoint '" + target + "' has port out of range");
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("endpoint '" + target + "' has a non-numeric port", e);
        }
        return target;
    }

    public int size() {
        return targets.size();
    }

    public String target(int index) {
        return targets.get(index);
    }

    /** The endpoint the next request should try first. */
    public int preferred() {
        return preferred.get();
    }

    /**
     * The endpoint calls try first: the leader's, once a node named it among these endpoints (see
     * {@link #learnLeader}), else {@link #preferred}. There a call goes to the log without the hop
     * from a follower's gateway to the leader and back, and a read is answered by the leader's read
     * index. Session streams and watches stay on the preferred endpoint: a leader's crash then
     * fails only calls, which retry, while sessions keep their connection and their leases.
     */
    public int callTarget() {
        int l = leader.get();
        return l >= 0 ? l : preferred.get();
    }

    /**
     * Moves the preferred endpoint past {@code index} after a failure there. A compare-and-set, so
     * several requests failing on the same node move it on once, not once each. A failure at the
     * leader's endpoint sends calls back to the preferred one until a node names the leader again.
     */
    public void failed(int index) {
        preferred.compareAndSet(index, (index + 1) % targets.size());
        leader.compareAndSet(index, -1);
        if (leader.get() < 0) {
            learnLeader();
        }
    }

    /**
     * Asks the preferred endpoint's node which endpoint leads ({@code Leader}, no log entry) and
     * sends calls there from its answer on. One question at a time; none with a single endpoint.
     * Without an answer (no leader known during an election, the node unreachable or silent for
     * {@link #LEADER_DEADLINE_MS}) the preferred endpoint is asked again {@link
     * #LEADER_RETRY_NANOS} later. A leader whose configured endpoint is not one of these as
     * written, or a node older than the question (UNIMPLEMENTED), leaves calls on the preferred
     * endpoint until the next failed call. After any answer the question is asked again {@link
     * #LEADER_RECHECK_NANOS} later.
     */
    public void learnLeader() {
        if (targets.size() < 2 || !asking.compareAndSet(false, true)) {
            return;
        }
        Channel channel;
        try {
            channel = channel(preferred.get());
        } catch (IllegalStateException closed) {
            asking.set(false);
            return;
        }
        TenureGrpc.newStub(channel)
                .withDeadlineAfter(LEADER_DEADLINE_MS, TimeUnit.MILLISECONDS)
                .leader(LeaderRequest.getDefaultInstance(), new StreamObserver<>() {
                    @Override
                    public void onNext(LeaderResponse answer) {
                        if (answer.getLeaderId() < 0) {
                            askSoon();
                            return;
                        }
                        leader.set(targets.indexOf(answer.getEndpoint()));
                        answered();
                    }

                    @Override
                    public void onError(Throwable t) {
                        if (Status.fromThrowable(t).getCode() == Status.Code.UNIMPLEMENTED) {
                            answered();
                        } else {
                            askSoon();
                        }
                    }

                    @Override
                    public void onCompleted() {}
                });
    }

    /** No answer (no leader known, an error): the question is asked again shortly. */
    private void askSoon() {
        TimeSource.Cancellable unused = time.schedule(this::askAgain, LEADER_RETRY_NANOS);
    }

    /**
     * An answer: the next question is due {@link #LEADER_RECHECK_NANOS} later, one scheduled at a
     * time (a failed call may have asked in between). If a question is in flight when it is due,
     * that question's answer schedules the next.
     */
    private void answered() {
        asking.set(false);
        synchronized (this) {
            if (closed) {
                return;
            }
            if (recheck != null) {
                recheck.cancel();
            }
            recheck = time.schedule(this::recheck, LEADER_RECHECK_NANOS);
        }
    }

    /** The retry after no answer: its question ended, so another may start. */
    private void askAgain() {
        asking.set(false);
        recheck();
    }

    private void recheck() {
        synchronized (this) {
            if (closed) {
                return;
            }
        }
        learnLeader();
    }

    public synchronized Channel channel(int index) {
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        if (channels[index] == null) {
            channels[index] = channelFactory.apply(targets.get(index));
            heard[index] = new Heard(time.nanoTime(), silentPredecessors[index]);
        }
        return channels[index];
    }

    /** What endpoint {@code index}'s current channel ({@link #channel}) has heard. */
    public synchronized Heard heard(int index) {
        channel(index);
        return heard[index];
    }

    /** Where carried calls' proofs of their sessions go (the client's sessions, once it has them). */
    public void proofs(CallMux.Proofs sink) {
        proofs = sink;
    }

    /** The channel for unary calls to endpoint {@code index}: they travel on its Calls stream if carried. */
    public synchronized Channel callChannel(int index) {
        Channel channel = channel(index);
        if (muxes == null) {
            return channel;
        }
        if (muxes[index] == null) {
            muxes[index] = new CallMux(channel, heard[index], time, (ch, id, sent) -> proofs.proved(ch, id, sent));
        }
        return muxes[index];
    }

    /**
     * The connection to endpoint {@code index} went silent while its peer may have dropped it (a
     * middlebox that lost its state, a half-open socket): the channel would keep sending into it,
     * since to the channel the connection looks alive. The next call makes a new one; this one
     * is shut down {@code lingerNanos} later, or once {@code lingering} says false when checked
     * every {@code lingerNanos} after that, failing whatever is still on it then (UNAVAILABLE,
     * which requests retry). Meanwhile a node that was only paused can still answer the calls in
     * flight on it, and sees none of its streams end (see {@link AttachMux#abandon}).
     * {@code seen}: the channel the caller found silent; a channel made since is left alone.
     * Returns whether it was replaced.
     */
    public boolean replace(int index, Channel seen, long lingerNanos, BooleanSupplier lingering) {
        ManagedChannel old;
        synchronized (this) {
            if (closed || channels[index] == null || channels[index] != seen) {
                return false;
            }
            old = channels[index];
            channels[index] = null;
            silentPredecessors[index] = heard[index].silentPredecessorsAfter();
            retiring.add(old);
            if (muxes != null) {
                muxes[index] = null;
            }
        }
        time.schedule(() -> retire(old, lingerNanos, lingering), lingerNanos);
        return true;
    }

    private void retire(ManagedChannel old, long lingerNanos, BooleanSupplier lingering) {
        boolean later = lingering.getAsBoolean();
        synchronized (this) {
            if (!retiring.contains(old)) {
                return; // close() shut it down already
            }
            if (later) {
                time.schedule(() -> retire(old, lingerNanos, lingering), lingerNanos);
                return;
            }
            retiring.remove(old);
        }
        old.shutdownNow();
    }

    /** Shuts every channel down, waiting briefly for calls in flight, then forcibly. */
    @Override
    public void close() {
        List<ManagedChannel> open = new ArrayList<>();
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (recheck != null) {
                recheck.cancel();
            }
            // Half-closed first, so that the channels' shutdown need not wait out the streams.
            for (int i = 0; muxes != null && i < muxes.length; i++) {
                if (muxes[i] != null) {
                    muxes[i].close();
                }
            }
            for (ManagedChannel c : channels) {
                if (c != null) {
                    open.add(c.shutdown());
                }
            }
            for (ManagedChannel c : retiring) {
                c.shutdownNow(); // given up as silent: nothing on it is worth waiting for now
            }
            retiring.clear();
        }
        for (ManagedChannel c : open) {
            try {
                if (!c.awaitTermination(1, TimeUnit.SECONDS)) {
                    c.shutdownNow();
                }
            } catch (InterruptedException e) {
                c.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
