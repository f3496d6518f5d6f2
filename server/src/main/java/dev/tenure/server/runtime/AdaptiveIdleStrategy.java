package dev.tenure.server.runtime;

import io.aeron.driver.MediaDriver;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.IdleStrategy;
import org.jspecify.annotations.Nullable;

/**
 * Idle strategy for agents that pass work along a pipeline (gateway → consensus module →
 * archive → consensus module → service → gateway) on a machine with few cores.
 *
 * <p>Three tiers by the time since the agent last saw work: up to {@code briskWindow} (1 ms) it
 * parks {@code briskPark} (20 µs), as the next hop of a request it just passed on, or the next
 * request of a busy client, usually comes that soon; up to {@code hotWindow} it parks
 * {@code hotPark} (300 µs); after that it backs off, doubling, to {@code coldPark} (5 ms).
 *
 * <p>Every hop of a request waits for the next agent to wake up, so the time an idle agent parks
 * is added to each request once per hop. Parking long keeps an idle node cheap; parking short
 * keeps a busy node fast. This strategy does both: for {@code hotWindow} after it last saw work
 * it parks at most {@code hotParkNanos}, and only after a quiet {@code hotWindow} does it back
 * off, doubling, to {@code coldParkNanos}. A node under load stays hot; a node at rest pays about
 * one cold park per hop on its first request after a pause. No agent ever busy-spins for long,
 * so three nodes and their clients fit on two cores.
 *
 * <p>The defaults are set by what a park costs, not by taste: on the two-core virtual machines
 * Tenure is measured on, a park-and-wake costs tens of microseconds of CPU. The hot window must
 * outlast the gap between two requests of one client in a closed loop (a few milliseconds), or
 * every hop of its next request pays a cold park. But a media driver of a cluster sees background
 * work all the time, even when idle (publication heartbeats, status messages, the consensus
 * heartbeat), so any window that long keeps it hot for good. Hence two settings: the media
 * driver, whose work is mostly background, gets a 2 ms window ({@link #forDriver()}); the agents
 * that only see work when a request passes (archive, clustered service, gateway) get 20 ms
 * ({@link #standard()}). Both back off to a 5 ms park (see BENCHMARKS.md, 'One node on a quiet
 * machine, idle CPU and failover').
 *
 * <p>The hot park is 300 µs, not shorter: a hot agent wakes once per park whether or not work
 * came, and with several hot agents per node the wake-ups took the CPU of two cores from the
 * requests. The brisk first millisecond at 20 µs takes back what a lone request loses to the
 * longer park; its price is in {@code hold}, where keepalives keep the agents brisk (see
 * BENCHMARKS.md, 'A longer hot park, and a brisk first millisecond').
 *
 * <p>With an {@link AgentWakeup}, a request entering the node unparks the agent from its cold
 * park and keeps it hot for a while, and an agent given a {@link AgentWakeup.Hop} is unparked
 * from any park when the hop before it hands it work, and after a duty cycle that did work
 * tells the wakeup, which unparks whoever waits on it (-Dtenure.idle.wakeOnRequest=false turns
 * all of that off).
 *
 * <p>On a lone member every request wakes the agents ({@link AgentWakeup#loneMember()}), so the
 * cold park only paces housekeeping (timers, the client conductors' and the driver's liveness
 * checks, the mark file): it is 50 ms, entered at once rather than backed off to, and the hot
 * window, which there only spares a client's next request the unpark, is 5 ms. Agents stay hot
 * while any request is in flight ({@link AgentWakeup#inFlight}), so a slow fsync never leaves
 * a request waiting out a cold park. An idle lone node so costs much less than with the cluster
 * timings (see BENCHMARKS.md, 'A lone node that rests, and cheaper keepalive bursts'). The price
 * is in what no request announces: a lease deadline fires up to one cold park late on a node at
 * rest, and the grant it makes may wait out up to two more (service, gateway): at most 0.15 s,
 * against TTLs of seconds.
 */
public final class AdaptiveIdleStrategy implements IdleStrategy {

    /** Empty duty cycles spun, then yielded, before the first park (except where {@link #parksAtOnce}). */
    static final int SPINS = 10;

    static final int YIELDS = 5;

    /**
     * The first park of a follower's clustered service after it applied something: no request
     * waits on it, so it reads the log in batches rather than at every commit.
     */
    private static final long FOLLOWER_SERVICE_PARK_NANOS =
            TimeUnit.MICROSECONDS.toNanos(Long.getLong("tenure.idle.followerServiceParkMicros", 1_000));

    private static final boolean WAIT_ON_SOCKETS =
            Boolean.parseBoolean(System.getProperty("tenure.idle.waitOnSockets", "true"));

    private static final long COLD_PARK_MICROS = 5_000;
    private static final long LONE_COLD_PARK_MICROS = 50_000;
    private static final long LONE_HOT_WINDOW_MILLIS = 5;

    private final long briskWindowNanos;
    private final long briskParkNanos;
    private final long hotWindowNanos;
    private final long hotParkNanos;
    private final long coldParkNanos;
    private final long firstColdParkNanos;
    private final @Nullable AgentWakeup wakeup; // null: nobody wakes this agent early
    private final AgentWakeup.@Nullable Hop hop; // null: passes nothing on that the node's other agents wait for
    private long lastWorkNanos = System.nanoTime();
    private int idleCycles;
    private long parkNanos;
    private long followerParkNanos = FOLLOWER_SERVICE_PARK_NANOS;
    private boolean registered;
    private volatile @Nullable Thread owner;
    private volatile boolean cold;

    /**
     * Parks on the first empty duty cycle, without spinning or yielding: set for the consensus
     * thread of a cluster member, whose every duty cycle polls the driver's UDP sockets (system
     * calls even when nothing came), so that {@link #SPINS} spins and {@link #YIELDS} yields made
     * each of its wake-ups 16 duty cycles, each with its system calls. Elsewhere the spins pay: a
     * lone member's requests are faster with them (see BENCHMARKS.md, 'Followers that rest, and a
     * consensus thread that does not spin').
     */
    private boolean parksAtOnce;

    /**
     * Where a cluster member's consensus thread rests instead of parking: the driver's socket
     * selector, which a datagram wakes at once ({@link SocketWait}; see BENCHMARKS.md, 'A
     * consensus thread that a datagram wakes'). Null elsewhere.
     */
    private @Nullable SocketWait sockets;

    public AdaptiveIdleStrategy(
            long briskWindowNanos,
            long briskParkNanos,
            long hotWindowNanos,
            long hotParkNanos,
            long coldParkNanos,
            @Nullable AgentWakeup wakeup,
            AgentWakeup.@Nullable Hop hop) {
        this.hop = hop;
        this.briskWindowNanos = briskWindowNanos;
        this.briskParkNanos = briskParkNanos;
        this.hotWindowNanos = hotWindowNanos;
        this.hotParkNanos = hotParkNanos;
        this.coldParkNanos = coldParkNanos;
        this.wakeup = wakeup;
        // Backing off finds work that nobody announced sooner than one long park would; where
        // every request wakes the agent, there is none to find.
        this.firstColdParkNanos = wakeup != null && wakeup.loneMember() ? coldParkNanos : hotParkNanos;
        this.parkNanos = firstColdParkNanos;
    }

    /** For agents that see work only when a request passes through them. */
    public static AdaptiveIdleStrategy standard() {
        return standard(null, null);
    }

    /**
     * As {@link #standard()}, woken early by {@code wakeup} when a request enters the node and
     * when the agent before it on a request's path hands it work.
     */
    public static AdaptiveIdleStrategy standard(@Nullable AgentWakeup wakeup, AgentWakeup.@Nullable Hop hop) {
        return of("tenure.idle.hotWindowMillis", 20, wakeup, hop);
    }

    /** For the media driver, which sees background work (heartbeats, status messages) all the time. */
    public static AdaptiveIdleStrategy forDriver() {
        return of("tenure.idle.driverHotWindowMillis", 2, null, null);
    }

    /**
     * As {@link #forDriver()}, for the consensus thread that runs {@code driver}: woken as {@link
     * #standard(AgentWakeup, AgentWakeup.Hop)}. On a member of a cluster it rests in the driver's
     * socket selector, so that what comes over the network wakes it too.
     */
    public static AdaptiveIdleStrategy forConsensus(@Nullable AgentWakeup wakeup, MediaDriver driver) {
        AdaptiveIdleStrategy strategy = of("tenure.idle.driverHotWindowMillis", 2, wakeup, AgentWakeup.Hop.CONSENSUS);
        strategy.parksAtOnce = wakeup != null && !wakeup.loneMember();
        // Only where every other hand-off wakes it: with -Dtenure.idle.wakeOnRequest=false a
        // request from this node's gateway would wait out the whole rest.
        if (strategy.parksAtOnce && strategy.wakeup != null && WAIT_ON_SOCKETS) {
            strategy.restOn(SocketWait.of(driver));
        }
        return strategy;
    }

    /**
     * For a thread whose work no request brings (the driver's async executor, busy only when a
     * publication is added): never woken or kept hot by requests, but as slow to poll on a lone
     * member as the agents that are.
     */
    public static AdaptiveIdleStrategy background(@Nullable AgentWakeup wakeup) {
        return of("tenure.idle.hotWindowMillis", 20, wakeup, false, null);
    }

    private static AdaptiveIdleStrategy of(
            String hotWindowProperty,
            long hotWindowMillis,
            @Nullable AgentWakeup wakeup,
            AgentWakeup.@Nullable Hop hop) {
        return of(hotWindowProperty, hotWindowMillis, wakeup, true, hop);
    }

    /** {@code woken}: registered with {@code wakeup}, not only paced by it. */
    private static AdaptiveIdleStrategy of(
            String hotWindowProperty,
            long hotWindowMillis,
            @Nullable AgentWakeup wakeup,
            boolean woken,
            AgentWakeup.@Nullable Hop hop) {
        AgentWakeup wakes =
                Boolean.parseBoolean(System.getProperty("tenure.idle.wakeOnRequest", "true")) ? wakeup : null;
        boolean lone = wakes != null && wakes.loneMember();
        return new AdaptiveIdleStrategy(
                TimeUnit.MICROSECONDS.toNanos(Long.getLong("tenure.idle.briskWindowMicros", 1000)),
                TimeUnit.MICROSECONDS.toNanos(Long.getLong("tenure.idle.briskParkMicros", 20)),
                TimeUnit.MILLISECONDS.toNanos(Long.getLong(
                        hotWindowProperty, lone ? Math.min(hotWindowMillis, LONE_HOT_WINDOW_MILLIS) : hotWindowMillis)),
                TimeUnit.MICROSECONDS.toNanos(Long.getLong("tenure.idle.hotParkMicros", 300)),
                TimeUnit.MICROSECONDS.toNanos(
                        Long.getLong("tenure.idle.coldParkMicros", lone ? LONE_COLD_PARK_MICROS : COLD_PARK_MICROS)),
                woken ? wakes : null,
                woken && wakes != null ? hop : null);
    }

    /** Rests in {@code sockets} instead of parking; call before the agent first idles. */
    void restOn(SocketWait sockets) {
        this.sockets = sockets;
    }

    boolean coldParked() {
        return cold;
    }

    /** Unparks the agent if it is in its cold park; see {@link AgentWakeup}. */
    void wakeIfCold() {
        if (cold) {
            wake();
        }
    }

    /** Ends the agent's park, or its next one if it is running. */
    void wake() {
        if (sockets != null) {
            sockets.wake();
            return;
        }
        Thread t = owner;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void park(long nanos) {
        if (sockets != null) {
            sockets.await(nanos);
        } else {
            LockSupport.parkNanos(nanos);
        }
    }

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            reset();
            if (hop != null) {
                Objects.requireNonNull(wakeup, "an agent has a hop only with a wakeup")
                        .worked(hop);
            }
            return;
        }
        idle();
    }

    // The yields are the back-off's middle step between spins and parks, as in Aeron's
    // BackoffIdleStrategy: a yield is what hands the core over for the shortest while.
    @SuppressWarnings("ThreadPriorityCheck")
    @Override
    public void idle() {
        idleCycles++;
        if (!parksAtOnce && idleCycles <= SPINS) {
            Thread.onSpinWait();
            return;
        }
        if (!parksAtOnce && idleCycles <= SPINS + YIELDS) {
            Thread.yield();
            return;
        }
        if (wakeup != null && !registered) {
            owner = Thread.currentThread();
            wakeup.register(this, hop);
            registered = true;
        }
        if (hop == AgentWakeup.Hop.SERVICE
                && !Objects.requireNonNull(wakeup, "an agent has a hop only with a wakeup")
                        .serviceAnswers()) {
            // Not cold-marked: a request entering this node waits on the leader's service, not
            // on this one.
            park(followerParkNanos);
            followerParkNanos = Math.min(followerParkNanos << 1, Math.max(coldParkNanos, FOLLOWER_SERVICE_PARK_NANOS));
            return;
        }
        long now = System.nanoTime();
        long sinceWork = now - lastWorkNanos;
        if (sinceWork < briskWindowNanos) {
            park(briskParkNanos);
            return;
        }
        if (sinceWork < hotWindowNanos || (wakeup != null && wakeup.hot(now))) {
            park(hotParkNanos);
            return;
        }
        // Marked around the park only, so that a wake-up never unparks a hot agent. Marked, then
        // checked again: a wake-up that came between the check above and the mark either sees
        // the mark (and unparks) or is seen here.
        cold = true;
        if (wakeup == null || !wakeup.hot(System.nanoTime())) {
            park(parkNanos);
        }
        cold = false;
        parkNanos = Math.min(parkNanos << 1, coldParkNanos);
    }

    @Override
    public void reset() {
        lastWorkNanos = System.nanoTime();
        idleCycles = 0;
        parkNanos = firstColdParkNanos;
        followerParkNanos = FOLLOWER_SERVICE_PARK_NANOS;
    }

    @Override
    public String alias() {
        return "tenure-adaptive";
    }
}
