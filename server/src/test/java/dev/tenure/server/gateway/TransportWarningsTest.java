package dev.tenure.server.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** One record per interval passes, and says how many were left out; see BadStreamsTest for a node. */
class TransportWarningsTest {
    @Test
    void oneRecordPerIntervalPassesAndTheNextSaysHowManyWereLeftOut() {
        AtomicLong now = new AtomicLong();
        TransportWarnings throttle = new TransportWarnings(1_000, now::get);
        assertThat(throttle.isLoggable(warning("first"))).isTrue();
        assertThat(throttle.isLoggable(warning("second"))).isFalse();
        assertThat(throttle.isLoggable(warning("third"))).isFalse();
        LogRecord fine = new LogRecord(Level.FINE, "below WARNING");
        assertThat(throttle.isLoggable(fine)).as("not throttled").isTrue();
        now.set(1_000);
        LogRecord fourth = warning("fourth");
        assertThat(throttle.isLoggable(fourth)).isTrue();
        assertThat(fourth.getMessage()).isEqualTo("fourth [2 more such records since the previous one, not logged]");
        now.set(1_500);
        assertThat(throttle.isLoggable(warning("fifth"))).isFalse();
    }

    private static LogRecord warning(String message) {
        return new LogRecord(Level.WARNING, message);
    }
}
