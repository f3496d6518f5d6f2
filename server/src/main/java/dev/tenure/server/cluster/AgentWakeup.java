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
 */
public final class AgentWakeup {

    /** At most one wake-up per millisecond: requests closer than that find the agents hot. */
    static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * How long a woken agent stays hot: a request's reply may come back to this node over the
     * network (a follower's gateway, the leader elsewhere) several milliseconds later.
     */
    static final long HOT_AFTER_WAKE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final List<AdaptiveIdleStrategy> agents = new CopyOnWriteArrayList<>();
    private volatile long wokenAtNanos = System.nanoTime() - HOT_AFTER_WAKE_NANOS;

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

    /** True while agents should stay hot after the last wake-up. */
    boolean hot(long nowNanos) {
        return nowNanos - wokenAtNanos < HOT_AFTER_WAKE_NANOS;
    }

    int registered() {
        return agents.size();
    }
}
