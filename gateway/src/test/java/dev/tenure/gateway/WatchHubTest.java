package dev.tenure.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Change;
import dev.tenure.core.Change.Kind;
import dev.tenure.core.ElectionValue;
import dev.tenure.core.TenureEnd;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WatchHubTest {
    /** Runs each sending task at once, on the caller's thread. */
    private static WatchHub hub(int watchersMax, int keptMax) {
        WatchHub hub = new WatchHub(watchersMax, keptMax, Runnable::run);
        hub.reset(0);
        return hub;
    }

    private static Change put(long revision, String key) {
        return new Change(
                revision, Kind.KV_PUT, key, 0, 0, TenureEnd.NONE, 0, false, 0, revision, 1_000, ElectionValue.NONE);
    }

    /** Applies one change per name, revisions after the hub's. */
    private static void apply(WatchHub hub, String... names) {
        List<Change> changes = new ArrayList<>();
        long r = hub.revision();
        for (String n : names) {
            changes.add(put(++r, n));
        }
        hub.applied(changes);
    }

    static class Recorded implements WatchSink {
        final List<Long> revisions = new ArrayList<>();
        final List<Change> state = new ArrayList<>();
        long stateRevision = -1;
        WatchSink.Refusal ended;
        String message = "";
        boolean ready = true;

        @Override
        public boolean ready() {
            return ready;
        }

        @Override
        public void current(List<Change> s, long revision) {
            state.addAll(s);
            stateRevision = revision;
        }

        @Override
        public void change(Change change) {
            revisions.add(change.revision());
        }

        @Override
        public void end(Refusal why, String text) {
            ended = why;
            message = text;
        }
    }

    private static final WatchHub.StateReader NOTHING = new WatchHub.StateReader() {
        @Override
        public long revision() {
            return 0;
        }

        @Override
        public List<Change> current(String name, boolean prefix) {
            return List.of();
        }
    };

    @Test
    void aResumeGetsEveryKeptChangeAfterItsRevisionThenLiveOnes() {
        WatchHub hub = hub(10, 100);
        apply(hub, "a", "b", "a", "a");
        Recorded r = new Recorded();
        hub.watch("a", false, 1, r);
        assertThat(r.revisions).containsExactly(3L, 4L);
        apply(hub, "b", "a");
        assertThat(r.revisions).containsExactly(3L, 4L, 6L);
        assertThat(r.ended).isNull();
    }

    @Test
    void resumingTwiceFromTheLastRevisionSeenNeitherMissesNorRepeats() {
        WatchHub hub = hub(10, 100);
        Recorded first = new Recorded();
        AutoCloseable w = hub.watch("", true, 0, first);
        apply(hub, "a", "b", "c");
        closeQuietly(w);
        apply(hub, "d", "e");
        Recorded second = new Recorded();
        hub.watch("", true, first.revisions.get(first.revisions.size() - 1), second);
        apply(hub, "f");
        List<Long> all = new ArrayList<>(first.revisions);
        all.addAll(second.revisions);
        assertThat(all).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    }

    @Test
    void aRevisionOlderThanTheOldestKeptIsRefusedNamingIt() {
        WatchHub hub = hub(10, 3);
        apply(hub, "a", "a", "a", "a", "a"); // keeps 3, 4, 5
        assertThat(hub.oldestResumable()).isEqualTo(2);
        Recorded refused = new Recorded();
        assertThat(hub.watch("a", false, 1, refused)).isNull();
        assertThat(refused.ended).isEqualTo(WatchSink.Refusal.COMPACTED);
        assertThat(refused.message)
                .contains("revision 1 is older than this node keeps")
                .contains("after revision 2")
                .contains("revisionsKeptMax")
                .contains("list again");
        assertThat(refused.revisions).isEmpty();
        Recorded ok = new Recorded();
        hub.watch("a", false, 2, ok);
        assertThat(ok.revisions).containsExactly(3L, 4L, 5L);
    }

    @Test
    void aRestartKeepsNothingBeforeItsRevision() {
        WatchHub hub = hub(10, 100);
        hub.reset(40);
        Recorded r = new Recorded();
        assertThat(hub.watch("a", false, 39, r)).isNull();
        assertThat(r.ended).isEqualTo(WatchSink.Refusal.COMPACTED);
        Recorded at = new Recorded();
        hub.watch("a", false, 40, at);
        apply(hub, "a");
        assertThat(at.revisions).containsExactly(41L);
    }

    @Test
    void aRevisionAheadOfTheReplicaIsWaitedForAndWhatItHasIsSkipped() {
        WatchHub hub = hub(10, 100);
        apply(hub, "a");
        Recorded r = new Recorded();
        hub.watch("a", false, 3, r);
        apply(hub, "a", "a", "a");
        assertThat(r.revisions).containsExactly(4L);
    }

    @Test
    void aPrefixWatchSeesOnlyItsNames() {
        WatchHub hub = hub(10, 100);
        Recorded r = new Recorded();
        hub.watch("job/", true, 0, r);
        apply(hub, "job/1", "jobs", "job/", "other", "job/2/x");
        assertThat(r.revisions).containsExactly(1L, 3L, 5L);
    }

    @Test
    void aWatchWithoutRevisionStartsFromTheStateTheServiceThreadReads() {
        WatchHub hub = hub(10, 100);
        apply(hub, "a", "a");
        Recorded r = new Recorded();
        hub.watch("a", false, WatchHub.NO_REVISION, r);
        apply(hub, "a"); // applied before the service thread read the state: part of it
        assertThat(r.stateRevision).as("waits for the service thread").isEqualTo(-1);
        assertThat(hub.startsPending()).isTrue();
        Change now = put(3, "a");
        hub.serveStarts(new WatchHub.StateReader() {
            @Override
            public long revision() {
                return 3;
            }

            @Override
            public List<Change> current(String name, boolean prefix) {
                return List.of(now);
            }
        });
        assertThat(r.state).containsExactly(now);
        assertThat(r.stateRevision).isEqualTo(3);
        assertThat(r.revisions).isEmpty();
        apply(hub, "a");
        assertThat(r.revisions).containsExactly(4L);
    }

    @Test
    void aWatcherThatFallsBehindTheKeptChangesIsEndedNotSkippedAhead() {
        WatchHub hub = hub(10, 3);
        Recorded slow = new Recorded();
        hub.watch("a", false, 0, slow);
        apply(hub, "a");
        slow.ready = false; // its stream stops taking changes
        apply(hub, "a", "a", "a", "a");
        slow.ready = true;
        apply(hub, "a");
        assertThat(slow.revisions).containsExactly(1L);
        assertThat(slow.ended).isEqualTo(WatchSink.Refusal.COMPACTED);
        assertThat(slow.message)
                .contains("fell behind")
                .contains("after revision 1")
                .contains("list again");
        assertThat(hub.watcherCount()).isZero();
    }

    /** A stream that takes {@code room} changes, then is not ready until given more room. */
    static final class Narrow extends Recorded {
        int room;

        Narrow(int room) {
            this.room = room;
        }

        @Override
        public boolean ready() {
            return room > 0;
        }

        @Override
        public void change(Change change) {
            room--;
            super.change(change);
        }
    }

    @Test
    void aStreamThatStopsTakingMidBatchGetsTheRestInOrderWhenReadyAgain() {
        WatchHub hub = hub(10, 100);
        Narrow narrow = new Narrow(2);
        hub.watch("a", false, 0, narrow);
        apply(hub, "a", "b", "a", "a", "b", "a"); // 1, 3, 4, 6 are its changes
        assertThat(narrow.revisions).containsExactly(1L, 3L);
        narrow.room = 1;
        apply(hub, "b"); // 7 wakes it: room for one more
        assertThat(narrow.revisions).containsExactly(1L, 3L, 4L);
        narrow.room = 10;
        apply(hub, "a");
        assertThat(narrow.revisions).containsExactly(1L, 3L, 4L, 6L, 8L);
        assertThat(narrow.ended).isNull();
    }

    @Test
    void theWatcherAfterWatchersMaxIsRefusedNamingTheLimit() {
        WatchHub hub = hub(2, 100);
        AutoCloseable one = hub.watch("a", false, 0, new Recorded());
        hub.watch("b", false, WatchHub.NO_REVISION, new Recorded());
        Recorded third = new Recorded();
        assertThat(hub.watch("c", false, 0, third)).isNull();
        assertThat(third.ended).isEqualTo(WatchSink.Refusal.WATCHERS_FULL);
        assertThat(third.message).contains("watchersMax (2) reached");
        closeQuietly(one);
        assertThat(hub.watch("c", false, 0, new Recorded())).isNotNull();
        hub.serveStarts(NOTHING);
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
