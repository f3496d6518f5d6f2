package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.internal.Backoff;
import dev.tenure.client.internal.Horizon;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The pure leaves: horizon arithmetic and the backoff schedule. */
class HorizonTest {
    private static final long LIFE = 2_850;

    @Test
    void startsAtOpenSendTimePlusLifetime() {
        Horizon h = new Horizon();
        h.start(1_000, LIFE);
        assertThat(h.valueNanos()).isEqualTo(1_000 + LIFE);
        assertThat(h.passed(1_000 + LIFE - 1)).isFalse();
        assertThat(h.passed(1_000 + LIFE)).isTrue();
    }

    @Test
    void ackAdvancesFromThatKeepAlivesSendTimeNotFromItsArrival() {
        Horizon h = new Horizon();
        h.start(0, LIFE);
        h.sent(1, 500);
        assertThat(h.acked(1)).hasValue(500);
        assertThat(h.valueNanos()).isEqualTo(500 + LIFE);
    }

    @Test
    void neverMovesBack() {
        Horizon h = new Horizon();
        h.start(0, LIFE);
        h.sent(1, 100);
        h.sent(2, 200);
        h.acked(2);
        assertThat(h.valueNanos()).isEqualTo(200 + LIFE);
        assertThat(h.acked(1)).isEmpty(); // covered by the newer ack, forgotten with it
        assertThat(h.renewed(150)).isFalse(); // an older renewal (e.g. a late Resume) changes nothing
        assertThat(h.valueNanos()).isEqualTo(200 + LIFE);
    }

    @Test
    void overdueOnlyOnceAKeepAliveWaitedTheGrace() {
        Horizon h = new Horizon();
        h.start(0, LIFE);
        h.sent(1, 100);
        assertThat(h.overdue(199, 100)).isFalse();
        assertThat(h.overdue(200, 100)).isTrue();
        h.forgetOutstanding();
        assertThat(h.overdue(10_000, 100)).isFalse();
    }

    @Test
    // The overflow is the case under test: nanoTime readings wrap, and only differences count.
    @SuppressWarnings("ConstantOverflow")
    void worksAcrossTheNanoTimeSignWrap() {
        Horizon h = new Horizon();
        h.start(Long.MAX_VALUE - 10, LIFE); // value wraps negative
        assertThat(h.passed(Long.MAX_VALUE)).isFalse();
        assertThat(h.passed(Long.MAX_VALUE - 10 + LIFE)).isTrue();
    }

    @Test
    void backoffCeilingsAre50MsForOneRoundThenDoubleFrom100MsToOneSecond() {
        assertThat(Backoff.ceilingNanos(1, 1)).isEqualTo(50_000_000L);
        assertThat(Backoff.ceilingNanos(2, 1)).isEqualTo(100_000_000L);
        assertThat(Backoff.ceilingNanos(3, 1)).isEqualTo(200_000_000L);
        assertThat(Backoff.ceilingNanos(1, 3)).isEqualTo(50_000_000L);
        assertThat(Backoff.ceilingNanos(2, 3)).isEqualTo(50_000_000L);
        assertThat(Backoff.ceilingNanos(3, 3)).isEqualTo(100_000_000L);
        assertThat(Backoff.ceilingNanos(6, 3)).isEqualTo(800_000_000L);
        assertThat(Backoff.ceilingNanos(100, 3)).isEqualTo(1_000_000_000L);
    }

    /** Full jitter: each delay is drawn from [0, ceiling), spread over all of it. */
    @Test
    void backoffDelaysAreDrawnFromZeroToTheCeiling() {
        SplittableRandom random = new SplittableRandom(7);
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 10_000; i++) {
            long d = Backoff.delayNanos(3, 3, random);
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertThat(min).isBetween(0L, 1_000_000L);
        assertThat(max).isBetween(99_000_000L, 99_999_999L);
    }
}
