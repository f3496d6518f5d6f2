package dev.tenure.server.runtime;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Wakes a node's resting agents when a request enters the node, so that it does not wait out a
 * cold park at every hop. A request that finds the node at rest crosses the consensus thread and
 * the clustered service, each parked for up to 5 ms ({@link AdaptiveIdleStrategy}); the gateway
 * knows the moment it hands a request to the cluster, and calls {@link #requestEntered()} then.
 *
 * <p>Only agents in their cold park are unparked, and every agent counts the moment as work for
 * its hot window (parks of 300 µs, not the brisk 20 µs): on a busy node nobody is cold, so this
 * costs a volatile write at most once per {@link #MIN_GAP_NANOS} and wakes nobody, where waking
 * agents that are already hot would multiply their wake-ups, which on two cores take the CPU
 * from the requests (see BENCHMARKS.md, 'A longer hot park, and a brisk first millisecond'; what
 * waking cold agents saves is in 'Waking the node when a request enters'). The agents register
 * themselves on their first idle call.
 *
 * <p>Hand-offs. Inside the node each hop of a request knows when it passed the request on, and
 * to whom: the gateway after it offered requests to the log ({@link #handedToLog()}: the
 * consensus thread), the consensus thread when the commit position moved ({@link #committed()}:
 * the service, if requests wait on it), the service after it applied something ({@link #worked}:
 * the gateway, if it awaits answers, and on the leader of a cluster the consensus thread, whose
 * driver carries replies to a peer's gateway). Those unpark the next hop in any park, hot or
 * cold: a hot agent would otherwise wait out up to 300 µs per hop, and on one node those waits
 * were about half of one client's acquire + release (see BENCHMARKS.md, 'Each hop wakes the
 * next'). What comes from the network (a peer's log or acks, the leader's replies) announces
 * itself to nobody; on a member of a cluster the consensus thread, whose driver receives it,
 * rests in the driver's socket selector, which a datagram wakes ({@link SocketWait}), and the
 * hand-offs here reach it through that selector.
 *
 * <p>On a lone member the gateway is the only way in: the log is shared memory, and no peer
 * sends anything. Every request that reaches the node wakes its agents, so they need not poll
 * for work that has not been announced, and {@link #loneMember()} lets them rest much longer
 * (see {@link AdaptiveIdleStrategy}). A member of a cluster receives the log and its peers'
 * traffic from the network, which wakes only the consensus thread; its agents keep backing off
 * from short parks.
 */
public final class AgentWakeup {

    /** At most one wake-up per millisecond: requests closer than that find the agents hot. */
    static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * How long a woken agent stays hot: a request's reply may come back to this node over the
     * network (a follower's gateway, the leader elsewhere) several milliseconds later.
     */
    static final long HOT_AFTER_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * On a lone member a request's whole path (gateway, consensus, fsync, service, gateway) takes
     * a millisecond or two, with no network in it.
     */
    static final long LONE_HOT_AFTER_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** Where an agent sits in a request's path through the node. */
    public enum Hop {
        /**
         * The thread of the media driver, archive and consensus module ({@link
         * dev.tenure.server.cluster.ConsensusHost}).
         */
        CONSENSUS,
        /** The clustered service, which applies the log. */
        SERVICE,
        /** The gateway's agent, which sends requests into the cluster and reads the replies. */
        GATEWAY
    }

    private final List<AdaptiveIdleStrategy> agents = new CopyOnWriteArrayList<>();
    private final AtomicReferenceArray<AdaptiveIdleStrategy> hops = new AtomicReferenceArray<>(Hop.values().length);
    private final boolean loneMember;
    private final long hotAfterWakeNanos;
    private volatile long wokenAtNanos;
    private volatile int requestsInFlight;
    /** Until the service hears its role, assume the replies may have to go out. */
    private volatile boolean leader = true;

    /** For a member of a cluster of {@code members}. */
    public AgentWakeup(int members) {
        this.loneMember = members == 1;
        this.hotAfterWakeNanos = loneMember ? LONE_HOT_AFTER_WAKE_NANOS : HOT_AFTER_WAKE_NANOS;
        this.wokenAtNanos = System.nanoTime() - hotAfterWakeNanos;
    }

    /** True if every unit of work on the node comes through {@link #requestEntered()}. */
    boolean loneMember() {
        return loneMember;
    }

    // hops is an EnumMap that agents on other threads read without a lock: the ordinal indexes
    // it within this process only, and is never stored or sent.
    @SuppressWarnings("EnumOrdinal")
    void register(AdaptiveIdleStrategy agent, @Nullable Hop hop) {
        agents.add(agent);
        if (hop != null) {
            hops.set(hop.ordinal(), agent);
        }
    }

    /** Called by the gateway's agent right after it offered requests to the cluster. */
    public void handedToLog() {
        unpark(Hop.CONSENSUS);
        requestEntered();
    }

    /**
     * Called by the consensus thread when the commit position moved: the service has log to
     * apply. A follower's service is left to find it on its own: no request waits on it.
     */
    public void committed() {
        if (serviceAnswers()) {
            unpark(Hop.SERVICE);
        }
    }

    /**
     * True if requests wait on this node's service: it is a lone member's or the leader's. A
     * follower's service applies the log only to keep a replica; nobody awaits what it does.
     */
    public boolean serviceAnswers() {
        return loneMember || leader;
    }

    /**
     * Called by an agent after a duty cycle that did work, with what it may have passed on: the
     * service's replies go to the gateway (shared memory) or, for a peer's gateway, out through
     * this node's driver; the consensus thread may have received replies for this node's gateway
     * from the leader elsewhere. The gateway is woken only while it awaits answers.
     */
    void worked(Hop hop) {
        if (hop == Hop.SERVICE) {
            // Only the leader's service replies; a follower's applies the log and sends nothing.
            if (!loneMember && leader) {
                unpark(Hop.CONSENSUS);
            }
            if (requestsInFlight > 0) {
                unpark(Hop.GATEWAY);
            }
        } else if (hop == Hop.CONSENSUS && !loneMember && requestsInFlight > 0) {
            unpark(Hop.GATEWAY);
        }
    }

    /** Called when a read arrives that the read lease may answer: the service answers it, with no entry to wait for. */
    public void readArrived() {
        unpark(Hop.SERVICE);
    }

    /** Told by the clustered service when its role changes: only a leader's service sends replies. */
    public void roleChanged(boolean nowLeader) {
        leader = nowLeader;
    }

    /**
     * Unparks whatever the agent is doing: a permit, so a hand-off that comes just before the
     * agent parks is not lost (its next park returns at once). On a running thread it costs a
     * lock and no system call; on a parked one it saves the rest of the park.
     */
    @SuppressWarnings("EnumOrdinal") // as in register()
    private void unpark(Hop hop) {
        AdaptiveIdleStrategy agent = hops.get(hop.ordinal());
        if (agent != null) {
            agent.wake();
        }
    }

    /** Called by the thread that hands requests to the cluster, after it handed some. */
    public void requestEntered() {
        long now = System.nanoTime();
        if (now - wokenAtNanos < MIN_GAP_NANOS) {
            return;
        }
        wokenAtNanos = now;
        for (AdaptiveIdleStrategy agent : agents) {
            agent.wakeIfCold();
        }
    }

    /**
     * Called by the thread that hands requests to the cluster whenever the number of them it
     * awaits answers for changes. While any is in flight every agent stays hot: the request is
     * somewhere in the node's pipeline (or a peer's), and an agent that went cold before its part
     * came, because a commit or an fsync took longer than the hot window, would add a whole cold
     * park to it.
     */
    public void inFlight(int requests) {
        requestsInFlight = requests;
    }

    /** True while agents should stay hot: requests in flight, or soon after the last wake-up. */
    boolean hot(long nowNanos) {
        return requestsInFlight > 0 || nowNanos - wokenAtNanos < hotAfterWakeNanos;
    }

    int registered() {
        return agents.size();
    }
}
