package dev.tenure.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.process.RealNode;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Two application contexts, each with a {@link LockRegistryLeaderInitiator} on the
 * auto-configured {@link TenureLockRegistry}: one leads; closing its whole context (lifecycle
 * stop, then the registry's close) makes the other leader at once, far below the 3 s disconnect
 * grace that a crash would wait for.
 */
class ContextLeadershipIT {

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    private static final Duration GRACE = Duration.ofSeconds(3);

    /** A leader initiator per context, named by {@code leader.id}. */
    @Configuration(proxyBeanMethods = false)
    static class Leadership {
        @Bean
        LockRegistryLeaderInitiator leaderInitiator(TenureLockRegistry registry, Environment env) {
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(
                    registry, new DefaultCandidate(env.getRequiredProperty("leader.id"), "context-leadership"));
            initiator.setHeartBeatMillis(100);
            initiator.setBusyWaitMillis(100);
            return initiator;
        }
    }

    private static ApplicationContextRunner runner(String id) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .withUserConfiguration(Leadership.class)
                .withPropertyValues(
                        "tenure.endpoints=" + NODE.endpoint(),
                        "tenure.disconnect-grace=" + GRACE.toMillis() + "ms",
                        "leader.id=" + id);
    }

    private static boolean leads(org.springframework.context.ApplicationContext context) {
        return context.getBean(LockRegistryLeaderInitiator.class).getContext().isLeader();
    }

    @Test
    void closingTheLeadersContextMakesTheOtherLeaderAtOnce() {
        runner("first").run(first -> {
            Await.atMost(Duration.ofSeconds(20)).until("first leads", () -> leads(first));
            runner("second").run(second -> {
                Await.atMost(Duration.ofSeconds(20))
                        .until(
                                "second's initiator runs",
                                () -> second.getBean(LockRegistryLeaderInitiator.class)
                                        .isRunning());
                for (int i = 0; i < 10; i++) { // second keeps trying meanwhile, and never leads
                    assertThat(leads(second)).isFalse();
                    Pause.forMillis(50);
                }
                long closedAt = System.nanoTime();
                first.close();
                Await.atMost(Duration.ofSeconds(20))
                        .every(Duration.ofMillis(5))
                        .until("second leads", () -> leads(second));
                Duration handOver = Duration.ofNanos(System.nanoTime() - closedAt);
                System.out.printf(
                        "leadership hand-over on the leader's context close: %d ms (disconnect grace %d ms)%n",
                        handOver.toMillis(), GRACE.toMillis());
                // A crash would wait for the grace: a hand-over under a third of it came from the close.
                assertThat(handOver).isLessThan(GRACE.dividedBy(3));
            });
        });
    }
}
