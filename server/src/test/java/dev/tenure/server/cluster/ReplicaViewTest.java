package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Change;
import dev.tenure.core.ElectionValue;
import dev.tenure.core.TenureEnd;
import dev.tenure.gateway.WatchSink;
import dev.tenure.server.config.WatchLimits;
import dev.tenure.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The view owns the threads that send its watches' changes: they live and end with it. */
class ReplicaViewTest {

    @Test
    void closingTheViewEndsItsWatchSendingThreadsAndLaterChangesAreNotSent() throws Exception {
        ReplicaView view = new ReplicaView(1, WatchLimits.defaults(), java.time.Duration.ofSeconds(5));
        view.watch().reset(0);
        List<Long> sent = new CopyOnWriteArrayList<>();
        AutoCloseable watch = view.watch().watch("a", false, 0, new Recording(sent));
        assertThat(watch).isNotNull();

        view.watch().applied(List.of(put(1, "a")));
        Await.atMost(Duration.ofSeconds(5)).until("the first change is sent", () -> sent.equals(List.of(1L)));

        view.close();
        assertThat(view.watchSendingStopped(Duration.ofSeconds(5)))
                .as("every sending thread ended")
                .isTrue();
        // The service thread has stopped before the view closes; a late change is dropped, not thrown.
        view.watch().applied(List.of(put(2, "a")));
        assertThat(sent).containsExactly(1L);
        view.close();
    }

    private static Change put(long revision, String key) {
        return new Change(
                revision,
                Change.Kind.KV_PUT,
                key,
                0,
                0,
                TenureEnd.NONE,
                0,
                false,
                0,
                revision,
                1_000,
                ElectionValue.NONE);
    }

    private record Recording(List<Long> sent) implements WatchSink {
        @Override
        public boolean ready() {
            return true;
        }

        @Override
        public void current(List<Change> state, long revision) {}

        @Override
        public void change(Change change) {
            sent.add(change.revision());
        }

        @Override
        public void end(Refusal why, String message) {}
    }
}
