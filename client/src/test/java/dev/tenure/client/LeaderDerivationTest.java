package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.WatchEvent.Kind;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The leader an observer reports, derived from an election's watch events: the rule book. */
class LeaderDerivationTest {
    private static final Instant AT = Instant.ofEpochMilli(1_000);

    private static byte[] v(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static WatchEvent event(long rev, Kind kind, long sid, long token, boolean shared, int permits, String v) {
        return new WatchEvent(rev, kind, "e", sid, token, Optional.empty(), 0, shared, permits, 0, AT, false, v(v));
    }

    private static WatchEvent granted(long rev, long sid, long token, String v) {
        return event(rev, Kind.GRANTED, sid, token, false, 1, v);
    }

    private static WatchEvent ended(long rev, long sid, long token) {
        return event(rev, Kind.ENDED, sid, token, false, 0, "");
    }

    private static WatchEvent proclaimed(long rev, long sid, long token, String v) {
        return event(rev, Kind.PROCLAIMED, sid, token, false, 0, v);
    }

    private static WatchEvent current(WatchEvent e) {
        return new WatchEvent(
                e.revision(),
                e.kind(),
                e.name(),
                e.sessionId(),
                e.token(),
                e.end(),
                e.previousToken(),
                e.shared(),
                e.permits(),
                e.version(),
                e.at(),
                true,
                e.value());
    }

    private static LeaderView leader(long sid, long token, String v, long rev) {
        return new LeaderView("e", sid, token, v(v), rev);
    }

    private static LeaderView none(long rev) {
        return LeaderView.none("e", rev);
    }

    /** Feeds the events (a Long is a sync at that revision) and returns every view reported, in order. */
    private static List<LeaderView> reported(Object... feed) {
        LeaderDerivation d = new LeaderDerivation("e");
        List<LeaderView> out = new ArrayList<>();
        for (Object o : feed) {
            LeaderView v = o instanceof Long rev ? d.onSynced(rev) : d.onEvent((WatchEvent) o);
            if (v != null) {
                out.add(v);
            }
        }
        return out;
    }

    @Test
    void theCurrentLeaderIsReportedAtTheSyncThenEveryTermInOrder() {
        assertThat(reported(
                        current(granted(7, 11, 3, "A")),
                        current(event(7, Kind.QUEUED, 12, 0, false, 1, "")),
                        7L,
                        ended(8, 11, 3),
                        granted(9, 12, 4, "B"),
                        ended(10, 12, 4),
                        granted(11, 13, 5, "C")))
                .containsExactly(
                        leader(11, 3, "A", 7), none(8), leader(12, 4, "B", 9), none(10), leader(13, 5, "C", 11));
    }

    @Test
    void noLeaderNowIsReportedAsNoneAtTheSync() {
        assertThat(reported(4L, granted(5, 11, 1, "A"))).containsExactly(none(4), leader(11, 1, "A", 5));
    }

    @Test
    void aTermShorterThanTheDeliveryIsStillReportedWithItsEnd() {
        // Three terms applied before the first was heard: each is its own view, none merged.
        assertThat(reported(
                        0L,
                        granted(1, 11, 1, "A"),
                        ended(2, 11, 1),
                        granted(3, 12, 2, "B"),
                        ended(4, 12, 2),
                        granted(5, 11, 3, "A")))
                .containsExactly(
                        none(0), leader(11, 1, "A", 1), none(2), leader(12, 2, "B", 3), none(4), leader(11, 3, "A", 5));
    }

    @Test
    void theSameSessionElectedAgainWithTheSameValueIsANewTerm() {
        // A hand-over in one step (ENDED then GRANTED) to the same session: the token tells the terms apart.
        assertThat(reported(0L, granted(1, 11, 1, "A"), granted(2, 11, 2, "A")))
                .containsExactly(none(0), leader(11, 1, "A", 1), leader(11, 2, "A", 2));
    }

    @Test
    void aProclaimIsTheSameTermWithANewValueAndAnEqualValueIsNoChange() {
        assertThat(reported(
                        current(granted(3, 11, 1, "A")),
                        3L,
                        proclaimed(4, 11, 1, "A2"),
                        proclaimed(5, 11, 1, "A2"),
                        proclaimed(6, 11, 1, "A3")))
                .containsExactly(leader(11, 1, "A", 3), leader(11, 1, "A2", 4), leader(11, 1, "A3", 6));
    }

    @Test
    void sharedSemaphoreQueuedAndKeyEventsAreIgnored() {
        assertThat(reported(
                        0L,
                        event(1, Kind.QUEUED, 12, 0, false, 1, ""),
                        event(2, Kind.LEFT, 12, 0, false, 1, ""),
                        event(3, Kind.GRANTED, 13, 1, true, 1, ""),
                        event(4, Kind.ENDED, 13, 1, true, 0, ""),
                        event(5, Kind.GRANTED, 14, 2, false, 3, ""),
                        event(6, Kind.KV_PUT, 0, 0, false, 0, ""),
                        event(7, Kind.KV_DELETED, 0, 0, false, 0, "")))
                .containsExactly(none(0));
    }

    @Test
    void aDowngradedLeaderIsNoLeaderAndTheEndOfAnotherLeaseChangesNothing() {
        assertThat(reported(
                        0L,
                        granted(1, 11, 1, ""),
                        ended(2, 12, 9),
                        event(3, Kind.DOWNGRADED, 11, 1, true, 0, ""),
                        event(4, Kind.GRANTED, 12, 2, true, 1, "")))
                .containsExactly(none(0), leader(11, 1, "", 1), none(3));
    }

    @Test
    void aResumeReportsFromTheFirstChangeOfTheLeader() {
        assertThat(reported(event(20, Kind.QUEUED, 12, 0, false, 1, ""), proclaimed(21, 11, 5, "A2"), ended(22, 11, 5)))
                .containsExactly(leader(11, 5, "A2", 21), none(22));
        assertThat(reported(ended(30, 11, 5), granted(31, 12, 6, "B")))
                .containsExactly(none(30), leader(12, 6, "B", 31));
    }

    @Test
    void aStartOverBeforeTheSyncForgetsTheStateReadBefore() {
        // The first current state (at 7) broke before its sync; the next, at 9, has no leader.
        assertThat(reported(current(granted(7, 11, 3, "A")), current(event(9, Kind.QUEUED, 12, 0, false, 1, "")), 9L))
                .containsExactly(none(9));
    }

    @Test
    void noLeaderHasNoSessionAndNoValue() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LeaderView("e", 11, 0, v(""), 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(none(4).hasLeader()).isFalse();
        assertThat(leader(11, 1, "", 4).hasLeader()).isTrue();
    }
}
