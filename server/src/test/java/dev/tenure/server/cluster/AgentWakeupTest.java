package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

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

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not reached in 10 s").isLessThan(until);
            Thread.sleep(1);
        }
    }

    /** Waits until the agent made no idle call for a second; returns its count then. */
    private static int awaitQuiet(AtomicInteger idles) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            int seen = idles.get();
            Thread.sleep(1_000);
            if (idles.get() == seen) {
                return seen;
            }
            assertThat(System.nanoTime()).as("agent never went quiet").isLessThan(until);
        }
    }

    @Test
    void aColdAgentIsUnparkedAndThenStaysHot() throws InterruptedException {
        // Never brisk or hot on its own: every park is the 30 s cold one, unless woken.
        AdaptiveIdleStrategy strategy = new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, wakeup);
        AtomicInteger idles = run(strategy);
        // Its cold parks double from 1 ms: wait until one has lasted a whole second.
        int before = awaitQuiet(idles);
        assertThat(strategy.coldParked()).isTrue();
        assertThat(wakeup.registered()).isEqualTo(1);

        long woken = System.nanoTime();
        wakeup.requestEntered();
        // Hot for 20 ms after the wake-up: 1 ms parks, so many idle calls, where its own
        // back-off would give at most one in the next second.
        awaitTrue(() -> idles.get() >= before + 5);
        assertThat(System.nanoTime() - woken).isLessThan(TimeUnit.SECONDS.toNanos(1));
        awaitTrue(strategy::coldParked);
    }

    @Test
    void aHotAgentIsNotUnparked() throws InterruptedException {
        // Hot for a minute after its last work, parking 30 s at a time: a wake-up must not cut that park.
        AdaptiveIdleStrategy strategy =
                new AdaptiveIdleStrategy(0, SHORT, TimeUnit.SECONDS.toNanos(60), LONG, LONG, wakeup);
        AtomicInteger idles = run(strategy);
        awaitTrue(() -> wakeup.registered() == 1);
        Thread.sleep(100);
        int before = idles.get();
        assertThat(strategy.coldParked()).isFalse();

        wakeup.requestEntered();
        Thread.sleep(300);
        assertThat(idles.get()).as("still in its hot park").isEqualTo(before);
    }

    @Test
    void withoutAWakeupAColdAgentWaitsOutItsPark() throws InterruptedException {
        // Its first cold park is already 30 s long (the back-off starts at the hot park).
        AdaptiveIdleStrategy strategy = new AdaptiveIdleStrategy(0, SHORT, 0, LONG, LONG, null);
        AtomicInteger idles = run(strategy);
        Thread.sleep(200);
        int before = idles.get();
        wakeup.requestEntered();
        Thread.sleep(200);
        assertThat(idles.get()).isEqualTo(before);
        assertThat(wakeup.registered()).isZero();
    }

    @Test
    void agentsStayHotWhileARequestIsInFlight() throws InterruptedException {
        // Never hot on its own: without requests in flight it parks 30 s at a time.
        AdaptiveIdleStrategy strategy = new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, wakeup);
        wakeup.inFlight(1);
        AtomicInteger idles = run(strategy);
        Thread.sleep(300);
        int during = idles.get();
        // 1 ms parks for 300 ms; a cold agent would have made one or two park calls at most.
        assertThat(during).isGreaterThan(50);
        assertThat(strategy.coldParked()).isFalse();

        wakeup.inFlight(0);
        awaitTrue(strategy::coldParked);
    }

    @Test
    void aLoneMembersAgentParksItsWholeColdParkAtOnce() throws InterruptedException {
        AgentWakeup lone = new AgentWakeup(1);
        assertThat(lone.loneMember()).isTrue();
        assertThat(wakeup.loneMember()).isFalse();
        // A member of a cluster backs off from 1 ms, doubling: several parks in its first second.
        AtomicInteger backingOff = run(new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, wakeup));
        Thread.sleep(1_000);
        stopAgent();
        stop.set(false);
        // A lone member, whose every request wakes it, goes straight to the 30 s park.
        AtomicInteger straight = run(new AdaptiveIdleStrategy(0, SHORT, 0, SHORT, LONG, lone));
        Thread.sleep(1_000);
        int spinsAndYields = 15;
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
        awaitTrue(() -> wakeup.registered() == 1);
        Thread.sleep(100);
        return idles;
    }

    @Test
    void theGatewaysHandOffUnparksTheConsensusThreadEvenWhenHot() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.CONSENSUS));
        int before = idles.get();
        long handed = System.nanoTime();
        wakeup.handedToLog();
        awaitTrue(() -> idles.get() > before);
        assertThat(System.nanoTime() - handed).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void aCommitUnparksTheServiceEvenWhenHot() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.SERVICE));
        int before = idles.get();
        // A hand-off to another hop leaves it parked.
        wakeup.handedToLog();
        Thread.sleep(300);
        assertThat(idles.get()).isEqualTo(before);

        long committed = System.nanoTime();
        wakeup.committed();
        awaitTrue(() -> idles.get() > before);
        assertThat(System.nanoTime() - committed).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void theServiceWakesTheGatewayOnlyWhileItAwaitsAnswers() throws InterruptedException {
        AtomicInteger idles = parkedAgent(hotFor(AgentWakeup.Hop.GATEWAY));
        int before = idles.get();
        wakeup.worked(AgentWakeup.Hop.SERVICE);
        Thread.sleep(300);
        assertThat(idles.get())
                .as("no request in flight: nothing for the gateway")
                .isEqualTo(before);

        wakeup.inFlight(1);
        long worked = System.nanoTime();
        wakeup.worked(AgentWakeup.Hop.SERVICE);
        awaitTrue(() -> idles.get() > before);
        assertThat(System.nanoTime() - worked).isLessThan(TimeUnit.SECONDS.toNanos(5));
    }
}
