package dev.tenure.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {

    @Test
    void returnsTheFirstValueThatPasses() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        int seen = Await.atMost(Duration.ofSeconds(10))
                .every(Duration.ofMillis(1))
                .until("three looks", looks::incrementAndGet, n -> n >= 3);
        assertThat(seen).isEqualTo(3);
    }

    @Test
    void failsNamingWhatWasAwaitedTheLastValueAndTheDetails() {
        assertThatThrownBy(() -> Await.atMost(Duration.ofMillis(50))
                        .every(Duration.ofMillis(5))
                        .failureDetails(() -> "node log: nothing")
                        .until("a waiter on lock x", () -> 0, n -> n == 1))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("gave up awaiting a waiter on lock x after ")
                .hasMessageContaining("last seen: 0")
                .hasMessageEndingWith("\nnode log: nothing");
    }

    @Test
    void aConditionIsLookedAtOnceMoreAfterTheLastPause() throws Exception {
        AtomicInteger looks = new AtomicInteger();
        assertThatThrownBy(() -> Await.atMost(Duration.ZERO).until("never", () -> looks.incrementAndGet() < 0))
                .isInstanceOf(AssertionError.class)
                .hasMessageNotContaining("last seen");
        assertThat(looks).hasValue(1);
    }

    @Test
    void whatTheProbeThrowsPropagates() {
        assertThatThrownBy(() -> Await.atMost(Duration.ofSeconds(10)).until("io", () -> {
                    throw new IOException("down");
                }))
                .isInstanceOf(IOException.class)
                .hasMessage("down");
    }

    @Test
    void theScaleComesFromThePropertyThenTheEnvironmentAndDefaultsToOne() {
        assertThat(TimeScale.parse(null, null)).isEqualTo(1);
        assertThat(TimeScale.parse(null, "2.5")).isEqualTo(2.5);
        assertThat(TimeScale.parse("3", "2.5")).isEqualTo(3);
        assertThatThrownBy(() -> TimeScale.parse("0", null)).hasMessageContaining("-Dtenure.test.timeScale");
        assertThatThrownBy(() -> TimeScale.parse(null, "slow")).hasMessageContaining("TENURE_TEST_TIME_SCALE");
    }
}
