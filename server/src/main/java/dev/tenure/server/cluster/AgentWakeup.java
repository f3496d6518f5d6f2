package dev.tenure.server.cluster;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Wakes a node's resting agents when a request enters the node, so that it does not wait out a
 * cold park at every hop. A request that finds the node at rest crosses the consensus thread and
 * the clustered service, each parked for up to 5 ms ({@link AdaptiveIdleStrategy}); the gateway
 * knows the moment it hands a request to the cluster, and calls {@link #requestEntered()} then.
 *
 * <p>Only agents in their cold park are unparked, and every agent counts the moment as work for
 * its hot window (parks of 300 µs, not the brisk 20 µs): on a busy node nobody is cold, so this
 * costs a volatile write at most once per {@link #MIN_GAP_NANOS} and wakes nobody, where waking
 * agents that are already hot would multiply their wake-ups (the cost run G of BENCHMARKS.md
 * measured). The agents register themselves on their first idle call.
 *
 * <p>On a lone member the gateway is the only way in: the log is shared memory, and no peer
 * sends anything. Every request that reaches the node wakes its agents, so they need not poll
 * for work that has not been announced, and {@link #loneMember()} lets them rest much longer
 * (see {@link AdaptiveIdleStrategy}). A member of a cluster receives the log and its peers'
 * traffic from the network, which wakes nobody; its agents keep polling.
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

    private final List<AdaptiveIdleStrategy> agents = new CopyOnWriteArrayList<>();
    private final boolean loneMember;
    private final long hotAfterWakeNanos;
    private volatile long wokenAtNanos;
    private volatile int requestsInFlight;

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

    void register(AdaptiveIdleStrategy agent) {
        agents.add(agent);
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
