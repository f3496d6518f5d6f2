package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.server.logging.LogCapture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** At most one line per interval, each saying how many were left out before it. */
class ThrottledLogTest {
    private static final long SECOND = 1_000_000_000L;

    private final LogCapture logged = LogCapture.of(ThrottledLogTest.class);
    private final AtomicLong now = new AtomicLong(5 * SECOND);
    private final ThrottledLog log =
            new ThrottledLog(LoggerFactory.getLogger(ThrottledLogTest.class), 10 * SECOND, now::get);

    @AfterEach
    void stopCapturing() {
        logged.close();
    }

    @Test
    void theFirstLineGoesOutAtOnceAndTheRestOfTheIntervalIsCountedIntoTheNextLine() {
        log.log(() -> "bad 1");
        for (int i = 2; i <= 1_000; i++) {
            int n = i;
            now.addAndGet(SECOND / 1_000); // a thousand a second
            log.log(() -> "bad " + n);
        }
        assertThat(lines()).containsExactly("bad 1");
        now.set(15 * SECOND); // one interval after the first line
        log.log(() -> "bad 1001");
        assertThat(lines()).containsExactly("bad 1", "bad 1001 [999 more since the previous line, not logged]");
    }

    @Test
    void aLineAfterAQuietIntervalSaysNothingWasLeftOut() {
        log.log(() -> "bad 1");
        now.addAndGet(11 * SECOND);
        log.log(() -> "bad 2");
        assertThat(lines()).containsExactly("bad 1", "bad 2");
    }

    @Test
    void aLineLeftOutIsNeverBuilt() {
        log.log(() -> "bad 1");
        log.log(() -> {
            throw new AssertionError("built a line that is not logged");
        });
        assertThat(lines()).containsExactly("bad 1");
    }

    @Test
    void eachLineIsAWarningOfTheLoggerItWasGiven() {
        log.log(() -> "bad 1");
        assertThat(logged.events())
                .singleElement()
                .satisfies(e -> assertThat(e.getLevel().toString()).isEqualTo("WARN"))
                .satisfies(e -> assertThat(e.getLoggerName()).isEqualTo(ThrottledLogTest.class.getName()));
    }

    private String[] lines() {
        return logged.lines().toArray(String[]::new);
    }
}
