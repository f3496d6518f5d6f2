package dev.tenure.server.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Filter;
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

    @Test
    void everyOtherTransportLoggerIsThrottledAtTheRootHandlersAndTheNodesOwnRecordsAreNot() {
        AtomicLong now = new AtomicLong();
        Filter backstop = new TransportWarnings.Backstop(null, new TransportWarnings(1_000, now::get));
        String pipeline = "io.grpc.netty.shaded.io.netty.channel.DefaultChannelPipeline";
        assertThat(backstop.isLoggable(warning(pipeline, "first"))).isTrue();
        assertThat(backstop.isLoggable(warning(pipeline, "second"))).isFalse();
        assertThat(backstop.isLoggable(warning("io.netty.handler.ssl.SslHandler", "unshaded")))
                .isFalse();
        assertThat(backstop.isLoggable(warning("dev.tenure.server.Anything", "the node's own")))
                .isTrue();
        assertThat(backstop.isLoggable(warning(TransportWarnings.LOGGERS.get(2), "throttled by its own filter")))
                .isTrue();
        Filter refusesAll = record -> false;
        assertThat(new TransportWarnings.Backstop(refusesAll, new TransportWarnings(1_000, now::get))
                        .isLoggable(warning("dev.tenure.server.Anything", "the handler's own filter still applies")))
                .isFalse();
    }

    @Test
    void aTransportRecordThatCarriesAnOutOfMemoryErrorGoesToTheHookEvenWhenThrottled() {
        List<Throwable> heard = new ArrayList<>();
        TransportWarnings.install(heard::add);
        try {
            AtomicLong now = new AtomicLong();
            TransportWarnings throttle = new TransportWarnings(1_000, now::get);
            throttle.isLoggable(warning("io.grpc.x", "first"));
            LogRecord caught = warning("io.grpc.x", "An exceptionCaught() event was fired");
            OutOfMemoryError direct = new OutOfMemoryError("Cannot reserve 2097152 bytes of direct buffer memory");
            caught.setThrown(new RuntimeException("wrapped", direct));
            assertThat(throttle.isLoggable(caught)).as("throttled all the same").isFalse();
            assertThat(heard).containsExactly(direct);
        } finally {
            TransportWarnings.install(error -> {});
        }
    }

    private static LogRecord warning(String message) {
        return new LogRecord(Level.WARNING, message);
    }

    private static LogRecord warning(String logger, String message) {
        LogRecord r = new LogRecord(Level.WARNING, message);
        r.setLoggerName(logger);
        return r;
    }
}
