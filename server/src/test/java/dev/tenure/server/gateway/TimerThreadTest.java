package dev.tenure.server.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.fatal.FatalErrors;
import dev.tenure.server.fatal.RecordedFatals;
import dev.tenure.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A gateway task that throws ends the node (status 14) instead of vanishing into a future. */
class TimerThreadTest {
    private final RecordedFatals fatals = new RecordedFatals();
    private final FatalErrors fatalErrors = new FatalErrors(fatals);

    @Test
    void aTaskThatThrowsIsFatalAndOneThatRunsIsNot() throws Exception {
        fatalErrors.serving();
        try (TimerThread timer = new TimerThread(fatalErrors)) {
            CountDownLatch ran = new CountDownLatch(1);
            timer.later(1, ran::countDown);
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(fatals.lines()).isEmpty();

            timer.later(1, () -> {
                throw new IllegalStateException("a grace that cannot end");
            });
            timer.soon(() -> {
                throw new IllegalStateException("an answer that cannot be sent");
            });
            Await.atMost(Duration.ofSeconds(10))
                    .every(Duration.ofMillis(10))
                    .until("both failures are reported", () -> fatals.lines().size() == 2);
            assertThat(fatals.lines())
                    .containsExactlyInAnyOrder(
                            "tenure: fatal: thread died (exit 14): a gateway task failed:"
                                    + " java.lang.IllegalStateException: a grace that cannot end",
                            "tenure: fatal: thread died (exit 14): a gateway task failed:"
                                    + " java.lang.IllegalStateException: an answer that cannot be sent");
        }
    }
}
