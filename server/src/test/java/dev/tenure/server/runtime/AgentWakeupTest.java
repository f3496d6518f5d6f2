package dev.tenure.server.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import java.nio.channels.Selector;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request entering the node unparks agents in their cold park and keeps every agent hot for a
 * while; an agent that is already hot is left alone. The parks here are seconds long, so an
 * agent that moved within a fraction of that was woken, not timed out.
 */
class AgentWakeupTest {
    private static final long LONG = TimeUnit.SECONDS.toNanos(30);
    private static final long SHORT = TimeUnit.MILLISECONDS.toNanos(1);

    private final AgentWakeup wakeup = new AgentWakeup(3);
    private final AtomicBoolean stop = new AtomicBoolean();
    private Thread agent;

    @AfterEach
    void stopAgent() throws InterruptedException {
        stop.set(true);
        if (agent != null) {
            agent.interrupt();
            agent.join(5_000);
        }
    }

    /** An agent with no work, idling with {@code strategy}; counts its idle calls. */
    private AtomicInteger run(AdaptiveIdleStrategy strategy) {
        AtomicInteger idles = new AtomicInteger();
        agent = new Thread(() -> {
            while (!stop.get() && !Thread.currentThread().isInterrupted()) {
                strategy.idle(0);
                idles.incrementAndGet();
            }
        });
        agent.setDaemon(true);
        agent.start();
        return idles;
    }

    private static void awaitTrue(String what, Await.Condition<RuntimeException> condition)
            throws InterruptedException {
        Await.atMost(Duration.ofSeconds(10)).every(Duration.ofMillis(1)).until(what, condition);
    }

    /** Waits until the agent made no idle call for a second; returns its count then. */
    private static int awaitQuiet(AtomicInteger idles) throws InterruptedException {
        return Await.atMost(Duration.ofSeconds(20))
                .every(Duration.ZERO) // each look is a second long
                .until("a second without an idle call", () -> quietFor(idles, 1_000), OptionalInt::isPresent)
                .getAsInt();
    }

    /** The agent's idle calls, if it made none in the next {@code ms}. */
    private static OptionalInt quietFor(AtomicInteger idles, long ms) throws InterruptedException {
        int seen = idles.get();
        Pause.forMillis(ms);
        return idles.get() == seen ? OptionalInt.of(seen) : OptionalInt.empty();
    }

    @Test
    void aColdAgentIsUnparkedAndThenStaysHot() throws InterruptedException {
        // Never brisk or hot on its own: every park is the 30 s cold one, unless woken.
        AdaptiveIdleStrategy strategy = new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, wakeup, null);
        AtomicInteger idles = run(strategy);
        // Its cold parks double from 1 ms: wait until one has lasted a whole second.
        int before = awaitQuiet(idles);
        assertThat(strategy.coldParked()).isTrue();
        assertThat(wakeup.registered()).isEqualTo(1);

        long woken = System.nanoTime();
        wakeup.requestEntered();
        // Hot for 20 ms after the wake-up: 1 ms parks, so many idle calls, where its own
        // back-off would give at most one in the next second.
        awaitTrue("five idle calls after the wake-up", () -> idles.get() >= before + 5);
        assertThat(System.nanoTime() - woken).isLessThan(TimeUnit.SECONDS.toNanos(1));
        awaitTrue("back in its cold park", strategy::coldParked);
    }

    @Test
    void aHotAgentIsNotUnparked() throws InterruptedException {
        // Hot for a minute after its last work, parking 30 s at a time: a wake-up must not cut that park.
        AdaptiveIdleStrategy strategy =
                new AdaptiveIdleStrategy(0, SHORT, TimeUnit.SECONDS.toNanos(60), LONG, LONG, wakeup, null);
        AtomicInteger idles = run(strategy);
        awaitTrue("the agent registered", () -> wakeup.registered() == 1);
        Pause.forMillis(100); // time to settle into its long park, which nothing shows from outside
        int before = idles.get();
        assertThat(strategy.coldParked()).isFalse();

        wakeup.requestEntered();
        Pause.forMillis(300); // a wake-up would have moved it by now
        assertThat(idles.get()).as("still in its hot park").isEqualTo(before);
    }

    @Test
    void withoutAWakeupAColdAgentWaitsOutItsPark() throws InterruptedException {
        // Its first cold park is already 30 s long (the back-off starts at the hot park).
        AdaptiveIdleStrategy strategy = new AdaptiveIdleStrategy(0, SHORT, 0, LONG, LONG, null, null);
        AtomicInteger idles = run(strategy);
        Pause.forMillis(200); // into its first cold park
        int before = idles.get();
        wakeup.requestEntered();
        Pause.forMillis(200); // a wake-up would have moved it by now
        assertThat(idles.get()).isEqualTo(before);
        assertThat(wakeup.registered()).isZero();
    }

    @Test
    void agentsStayHotWhileARequestIsInFlight() throws InterruptedException {
        // Never hot on its own: without requests in flight it parks 30 s at a time.
        AdaptiveIdleStrategy strategy = new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, wakeup, null);
        wakeup.inFlight(1);
        AtomicInteger idles = run(strategy);
        Pause.forMillis(300); // the window the idle calls are counted in
        int during = idles.get();
        // 1 ms parks for 300 ms; a cold agent would have made one or two park calls at most.
        assertThat(during).isGreaterThan(50);
        assertThat(strategy.coldParked()).isFalse();

        wakeup.inFlight(0);
        awaitTrue("back in its cold park", strategy::coldParked);
    }

    @Test
    void aLoneMembersAgentParksItsWholeColdParkAtOnce() throws InterruptedException {
        AgentWakeup lone = new AgentWakeup(1);
        assertThat(lone.loneMember()).isTrue();
        assertThat(wakeup.loneMember()).isFalse();
        // A member of a cluster backs off from 1 ms, doubling: several parks in its first second.
        AtomicInteger backingOff = run(new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, wakeup, null));
        Pause.forMillis(1_000); // its first second
        stopAgent();
        stop.set(false);
        // A lone member, whose every request wakes it, goes straight to the 30 s park.
        AtomicInteger straight = run(new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, lone, null));
        Pause.forMillis(1_000); // its first second
        int spinsAndYields = AdaptiveIdleStrategy.SPINS + AdaptiveIdleStrategy.YIELDS;
        assertThat(straight.get()).isLessThanOrEqualTo(spinsAndYields);
        assertThat(backingOff.get()).isGreaterThanOrEqualTo(spinsAndYields + 5);
    }

    /** Hot for a minute after its last work, parking 30 s at a time: only an unpark moves it. */
    private AdaptiveIdleStrategy hotFor(AgentWakeup.Hop hop) {
        return new AdaptiveIdleStrategy(0, SHORT, TimeUnit.SECONDS.toNanos(60), LONG, LONG, wakeup, hop);
    }

    /** Runs {@code strategy}'s agent until it sits in its first long park; returns its idle calls. */
    private AtomicInteger parkedAgent(AdaptiveIdleStrategy strategy) throws InterruptedException {
        AtomicInteger idles = run(strategy);
        awaitTrue("the agent registered", () -> wakeup.registered() == 1);
        Pause.forMillis(100); // time to settle into its long park, which nothing shows from outside
        return idles;
    }

    /** Asserts that the parked agent moves soon after {@code handOff}, well before its park ends. */
    private static void assertUnparkedBy(AtomicInteger idles, Runnable handOff) throws InterruptedException {
        int before = idles.get();
        long handed = System.nanoTime();
        handOff.run();
        awaitTrue("the agent unparked", () -> idles.get() > before);
        assertThat(System.nanoTime() - handed).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    /** Asserts that the parked agent is still parked 300 ms after {@code handOff}. */
    private static void assertLeftParkedBy(AtomicInteger idles, Runnable handOff, String why)
            throws InterruptedException {
        int before = idles.get();
        handOff.run();
        Pause.forMillis(300); // an unpark would have moved it by now
        assertThat(idles.get()).as(why).isEqualTo(before);
    }

    @Test
    void theGatewaysHandOffUnparksTheConsensusThreadEvenWhenHot() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.CONSENSUS));
        assertUnparkedBy(idles, wakeup::handedToLog);
    }

    @Test
    void aCommitUnparksTheServiceEvenWhenHot() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.SERVICE));
        assertLeftParkedBy(idles, wakeup::handedToLog, "a hand-off to another hop leaves it parked");
        assertUnparkedBy(idles, wakeup::committed);
    }

    @Test
    void theServiceWakesTheGatewayOnlyWhileItAwaitsAnswers() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.GATEWAY));
        assertLeftParkedBy(
                idles, () -> wakeup.worked(AgentWakeup.Hop.SERVICE), "no request in flight: nothing for the gateway");
        wakeup.inFlight(1);
        assertUnparkedBy(idles, () -> wakeup.worked(AgentWakeup.Hop.SERVICE));
    }

    @Test
    void aFollowersServiceReadsTheLogOnItsOwnAndIsNotWokenByCommits() throws InterruptedException {
        wakeup.roleChanged(false);
        // Parking 30 s at a time as the leader's; as a follower's it parks from 1 ms, doubling.
        AtomicInteger idles = run(hotFor(AgentWakeup.Hop.SERVICE));
        awaitTrue("five idle calls", () -> idles.get() >= 5);
        // Once a park lasted a second, the next one that begins is at least two seconds long.
        int quiet = awaitQuiet(idles);
        awaitTrue("the next park begun", () -> idles.get() > quiet);
        assertLeftParkedBy(idles, wakeup::committed, "nobody awaits a follower's service");
        wakeup.roleChanged(true);
        assertUnparkedBy(idles, wakeup::committed);
    }

    @Test
    void onlyTheLeadersServiceWakesTheConsensusThread() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.CONSENSUS));
        wakeup.roleChanged(false);
        assertLeftParkedBy(
                idles, () -> wakeup.worked(AgentWakeup.Hop.SERVICE), "a follower's service sends no replies");
        wakeup.roleChanged(true);
        assertUnparkedBy(idles, () -> wakeup.worked(AgentWakeup.Hop.SERVICE));
    }

    @Test
    void aConsensusThreadRestingOnItsSocketsIsWokenByHandOffs() throws Exception {
        try (Selector selector = Selector.open()) {
            AdaptiveIdleStrategy strategy = hotFor(AgentWakeup.Hop.CONSENSUS);
            strategy.restOn(new SocketWait(selector));
            AtomicInteger idles = parkedAgent(strategy);
            assertUnparkedBy(idles, wakeup::handedToLog);
            assertUnparkedBy(idles, () -> wakeup.worked(AgentWakeup.Hop.SERVICE));
            assertLeftParkedBy(idles, wakeup::committed, "a commit is for the service");
        }
    }
}
