package dev.tenure.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.TenureClient;
import dev.tenure.process.RealNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The auto-configuration against a real node: beans, health, metrics, a clean shutdown. */
@SuppressWarnings("LockNotBeforeTry") // each step is checked in turn, not in finally blocks
class TenureAutoConfigurationIT {

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .withPropertyValues(
                        "tenure.endpoints=" + NODE.endpoint(), "tenure.session-ttl=7s", "tenure.disconnect-grace=3s");
    }

    @Test
    void propertiesBindAndTheBeansArePresent() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(TenureClient.class);
            assertThat(context).hasSingleBean(TenureLockRegistry.class);
            assertThat(context).hasSingleBean(TenureHealthIndicator.class);
            assertThat(context).doesNotHaveBean(LockObserver.class);
            TenureProperties properties = context.getBean(TenureProperties.class);
            assertThat(properties.endpoints()).containsExactly(NODE.endpoint());
            assertThat(properties.sessionTtl()).isEqualTo(Duration.ofSeconds(7));
            assertThat(properties.disconnectGrace()).isEqualTo(Duration.ofSeconds(3));
        });
    }

    @Test
    void healthIsUpWithTheSessionConnected() {
        runner().run(context -> {
            Health health = context.getBean(TenureHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("state", "CONNECTED");
            assertThat(health.getDetails()).containsEntry("sessionTtl", "PT7S");
        });
    }

    @Test
    void healthIsDownWithoutANode() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(TenureAutoConfiguration.class))
                .withPropertyValues("tenure.endpoints=127.0.0.1:1")
                .run(context -> {
                    Health health = context.getBean(TenureHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                });
    }

    @Test
    void metricsAreRecordedAfterALockAndUnlock() {
        runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            TenureRegistryLock lock = context.getBean(TenureLockRegistry.class).obtain("metrics");
            lock.lock();
            lock.unlock();
            lock.lock(Duration.ofMillis(300));
            assertThat(lock.invalidated().get(10, TimeUnit.SECONDS)).isPresent();
            lock.unlock();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get(MicrometerLockObserver.WAIT).timer().count()).isEqualTo(2);
            assertThat(meters.get(MicrometerLockObserver.HOLD).timer().count()).isEqualTo(2);
            // One loss, by the client's horizon or the node's revocation, whichever came first.
            assertThat(meters.get(MicrometerLockObserver.LOSSES).counters().stream()
                            .mapToDouble(Counter::count)
                            .sum())
                    .isEqualTo(1.0);
            assertThat(meters.get(MicrometerLockObserver.LOSSES)
                            .counter()
                            .getId()
                            .getTag("reason"))
                    .isIn("HORIZON_PASSED", "REVOKED");
        });
    }

    @Test
    void anApplicationsOwnRegistryIsKept() {
        runner().withBean(
                        "mine",
                        TenureLockRegistry.class,
                        () -> new TenureLockRegistry(TenureClient.builder()
                                .endpoints(NODE.endpoint())
                                .build()))
                .run(context ->
                        assertThat(context).getBean(TenureLockRegistry.class).isSameAs(context.getBean("mine")));
    }

    @Test
    void closingOneContextLetsTheOtherLockAtOnce() {
        ApplicationContextRunner graced = runner().withPropertyValues("tenure.disconnect-grace=3s");
        graced.run(first -> graced.run(second -> {
            TenureRegistryLock held = first.getBean(TenureLockRegistry.class).obtain("shutdown");
            held.lock();
            CompletableFuture<Void> waited = CompletableFuture.runAsync(() -> {
                TenureRegistryLock lock =
                        second.getBean(TenureLockRegistry.class).obtain("shutdown");
                lock.lock();
                lock.unlock();
            });
            Thread.sleep(300);
            assertThat(waited).isNotDone();
            long closedAt = System.nanoTime();
            first.close();
            waited.get(10, TimeUnit.SECONDS);
            // The disconnect grace is 3 s here: a grant within 1 s came from the session's close.
            assertThat(Duration.ofNanos(System.nanoTime() - closedAt)).isLessThan(Duration.ofSeconds(1));
        }));
    }
}
