package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Change.Kind;
import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CancelWait;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Downgrade;
import dev.tenure.core.Command.Proclaim;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChangeRulesTest {
    private static final byte[] V = "v".getBytes(StandardCharsets.UTF_8);

    private static Fixture watched() {
        Fixture f = new Fixture();
        f.sm.trackChanges();
        return f;
    }

    private static List<Change> drain(Fixture f) {
        List<Change> out = new ArrayList<>();
        f.sm.drainChanges(out);
        return out;
    }

    private static Change granted(
            long rev, String lock, long sid, long token, TenureEnd prev, long prevToken, long at) {
        return new Change(rev, Kind.GRANTED, lock, sid, token, prev, prevToken, false, 1, 0, at, ElectionValue.NONE);
    }

    private static Change ended(long rev, String lock, long sid, long token, TenureEnd end, long at) {
        return new Change(rev, Kind.ENDED, lock, sid, token, end, 0, false, 0, 0, at, ElectionValue.NONE);
    }

    private static Change waiting(long rev, Kind kind, String lock, long sid, long at) {
        return new Change(rev, kind, lock, sid, 0, TenureEnd.NONE, 0, false, 1, 0, at, ElectionValue.NONE);
    }

    @Test
    void aGrantIsOneChangeWithTheNextRevision() {
        Fixture f = watched();
        long a = f.open(1_000);
        assertThat(drain(f)).isEmpty(); // opening a session changes no name
        f.grant(a, 1, "x");
        assertThat(drain(f)).containsExactly(granted(1, "x", a, 1, TenureEnd.NONE, 0, 1_000));
        assertThat(f.sm.revision()).isEqualTo(1);
    }

    @Test
    void releaseWithHandOffEndsThenGrantsInOneStep() {
        Fixture f = watched();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.now = 1_010;
        f.apply(new Acquire(b, 1, "x", -1));
        f.now = 1_020;
        f.release(a, 2, "x", g.token());
        assertThat(drain(f))
                .containsExactly(
                        granted(1, "x", a, 1, TenureEnd.NONE, 0, 1_000),
                        waiting(2, Kind.QUEUED, "x", b, 1_010),
                        ended(3, "x", a, 1, TenureEnd.RELEASED, 1_020),
                        granted(4, "x", b, 2, TenureEnd.RELEASED, 1, 1_020));
    }

    @Test
    void expiryEndsTheLeaseExpiredAndTheWaiterLeaves() {
        Fixture f = watched();
        long a = f.open(500);
        long b = f.open(10_000);
        f.grant(b, 1, "x");
        f.apply(new Acquire(a, 1, "x", -1));
        drain(f);
        f.advanceTo(1_600); // a's session deadline was 1_500: its wait goes
        assertThat(drain(f)).containsExactly(waiting(3, Kind.LEFT, "x", a, 1_600));
        f.apply(new Acquire(a, 2, "y", 0)); // a is gone: nothing changes
        long c = f.open(500);
        f.grant(c, 1, "z");
        f.advanceTo(2_200);
        assertThat(drain(f))
                .containsExactly(
                        granted(4, "z", c, 2, TenureEnd.NONE, 0, 1_600), ended(5, "z", c, 2, TenureEnd.EXPIRED, 2_200));
    }

    @Test
    void disconnectEndsEveryLeaseDisconnectedInNameOrder() {
        Fixture f = watched();
        long a = f.open(1_000);
        f.grant(a, 1, "y");
        f.grant(a, 2, "x");
        drain(f);
        f.apply(new CloseSession(a, TenureEnd.DISCONNECTED));
        assertThat(drain(f))
                .containsExactly(
                        ended(3, "x", a, 2, TenureEnd.DISCONNECTED, 1_000),
                        ended(4, "y", a, 1, TenureEnd.DISCONNECTED, 1_000));
    }

    @Test
    void aCancelledWaitLeavesTheQueue() {
        Fixture f = watched();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        f.apply(new Acquire(b, 7, "x", -1));
        f.apply(new CancelWait(b, 7));
        assertThat(drain(f))
                .containsExactly(
                        granted(1, "x", a, 1, TenureEnd.NONE, 0, 1_000),
                        waiting(2, Kind.QUEUED, "x", b, 1_000),
                        waiting(3, Kind.LEFT, "x", b, 1_000));
    }

    @Test
    void keyPutsAndDeletesCarryTheirVersions() {
        Fixture f = watched();
        long a = f.open(1_000);
        f.apply(new Put(a, 1, "k", V, null, 0));
        f.now = 1_005;
        f.apply(new Put(a, 2, "k", V, null, 0));
        f.apply(new Delete(a, 3, "k", null, 0));
        f.apply(new Delete(a, 4, "k", null, 0)); // not found: no change
        assertThat(drain(f))
                .containsExactly(
                        new Change(
                                1, Kind.KV_PUT, "k", 0, 0, TenureEnd.NONE, 0, false, 0, 1, 1_000, ElectionValue.NONE),
                        new Change(
                                2, Kind.KV_PUT, "k", 0, 0, TenureEnd.NONE, 0, false, 0, 2, 1_005, ElectionValue.NONE),
                        new Change(
                                3,
                                Kind.KV_DELETED,
                                "k",
                                0,
                                0,
                                TenureEnd.NONE,
                                0,
                                false,
                                0,
                                2,
                                1_005,
                                ElectionValue.NONE));
    }

    @Test
    void anEphemeralKeyIsDeletedWithItsSessionAfterItsLeases() {
        Fixture f = watched();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.apply(new Put(a, 2, "k", V, "x", g.token(), false, "", Command.ANY_VERSION, true));
        f.apply(new CloseSession(a, TenureEnd.RELEASED));
        assertThat(drain(f))
                .containsExactly(
                        granted(1, "x", a, 1, TenureEnd.NONE, 0, 1_000),
                        new Change(
                                2, Kind.KV_PUT, "k", a, 1, TenureEnd.NONE, 0, false, 0, 1, 1_000, ElectionValue.NONE),
                        ended(3, "x", a, 1, TenureEnd.RELEASED, 1_000),
                        new Change(
                                4,
                                Kind.KV_DELETED,
                                "k",
                                a,
                                1,
                                TenureEnd.NONE,
                                0,
                                false,
                                0,
                                1,
                                1_000,
                                ElectionValue.NONE));
    }

    @Test
    void theRevisionCountsOnWithoutAWatchingHost() {
        Fixture watched = watched();
        Fixture plain = new Fixture();
        for (Fixture f : List.of(watched, plain)) {
            long a = f.open(1_000);
            Grant g = f.grant(a, 1, "x");
            f.release(a, 2, "x", g.token());
        }
        assertThat(plain.sm.revision()).isEqualTo(2).isEqualTo(watched.sm.revision());
        assertThat(drain(plain)).isEmpty();
    }

    @Test
    void currentStateListsLeasesThenWaitersThenKeysAtTheCurrentRevision() {
        Fixture f = watched();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "job/1");
        f.now = 1_010;
        f.apply(new Acquire(b, 1, "job/1", -1));
        f.apply(new Put(a, 2, "job/k", V, null, 0));
        f.grant(a, 3, "other");
        List<Change> prefix = new ArrayList<>();
        f.sm.current("job/", true, prefix::add);
        assertThat(prefix)
                .containsExactly(
                        granted(4, "job/1", a, 1, TenureEnd.NONE, 0, 1_000),
                        waiting(4, Kind.QUEUED, "job/1", b, 1_010),
                        new Change(
                                4,
                                Kind.KV_PUT,
                                "job/k",
                                0,
                                0,
                                TenureEnd.NONE,
                                0,
                                false,
                                0,
                                1,
                                1_010,
                                ElectionValue.NONE));
        List<Change> one = new ArrayList<>();
        f.sm.current("other", false, one::add);
        assertThat(one).containsExactly(granted(4, "other", a, 2, TenureEnd.NONE, 0, 1_010));
        List<Change> none = new ArrayList<>();
        f.sm.current("job", false, none::add);
        assertThat(none).isEmpty();
    }

    private static Change elected(
            long rev, String lock, long sid, long token, TenureEnd prev, long prevToken, String v) {
        return new Change(
                rev, Kind.GRANTED, lock, sid, token, prev, prevToken, false, 1, 0, 1_000, ElectionRulesTest.v(v));
    }

    private static Change proclaimed(long rev, String lock, long sid, long token, String v, long at) {
        return new Change(
                rev, Kind.PROCLAIMED, lock, sid, token, TenureEnd.NONE, 0, false, 0, 0, at, ElectionRulesTest.v(v));
    }

    @Test
    void everyTermIsAGrantWithItsCampaignValueAndEveryProclaimAChangeOfTheSameTerm() {
        Fixture f = watched();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.apply(ElectionRulesTest.campaign(a, 1, "e", "A"));
        f.apply(ElectionRulesTest.campaign(b, 1, "e", "B"));
        f.now = 1_005;
        f.apply(new Proclaim(a, 2, "e", 1, ElectionRulesTest.v("A2")));
        f.apply(new Proclaim(a, 2, "e", 1, ElectionRulesTest.v("A2"))); // a retry: applied once
        f.apply(new Proclaim(a, 3, "e", 1, ElectionRulesTest.v("A2"))); // the same value again: still a change
        f.apply(new Proclaim(b, 2, "e", 1, ElectionRulesTest.v("X"))); // not the leader: nothing changes
        f.now = 1_010;
        f.apply(new Release(a, 4, "e", 1, false));
        assertThat(drain(f))
                .containsExactly(
                        elected(1, "e", a, 1, TenureEnd.NONE, 0, "A"),
                        new Change(
                                2, Kind.QUEUED, "e", b, 0, TenureEnd.NONE, 0, false, 1, 0, 1_000, ElectionValue.NONE),
                        proclaimed(3, "e", a, 1, "A2", 1_005),
                        proclaimed(4, "e", a, 1, "A2", 1_005),
                        ended(5, "e", a, 1, TenureEnd.RELEASED, 1_010),
                        new Change(
                                6,
                                Kind.GRANTED,
                                "e",
                                b,
                                2,
                                TenureEnd.RELEASED,
                                1,
                                false,
                                1,
                                0,
                                1_010,
                                ElectionRulesTest.v("B")));
        List<Change> now = new ArrayList<>();
        f.sm.current("e", false, now::add);
        assertThat(now)
                .as("the current state carries the leader's value")
                .containsExactly(new Change(
                        6,
                        Kind.GRANTED,
                        "e",
                        b,
                        2,
                        TenureEnd.RELEASED,
                        1,
                        false,
                        1,
                        0,
                        1_010,
                        ElectionRulesTest.v("B")));
    }

    @Test
    void theCurrentStateCarriesTheLastProclaimedValue() {
        Fixture f = watched();
        long a = f.open(1_000);
        f.apply(ElectionRulesTest.campaign(a, 1, "e", "A"));
        f.apply(new Proclaim(a, 2, "e", 1, ElectionRulesTest.v("A2")));
        List<Change> now = new ArrayList<>();
        f.sm.current("e", false, now::add);
        assertThat(now).containsExactly(elected(2, "e", a, 1, TenureEnd.NONE, 0, "A2"));
    }

    @Test
    void aDowngradeIsOneChangeBeforeTheSharedGrantsItAdmits() {
        Fixture f = watched();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant g = f.grant(a, 1, "r");
        f.apply(new Acquire(b, 1, "r", -1, Policy.NONE, 0, 1, true));
        f.now = 1_020;
        f.apply(new Downgrade(a, 2, "r", g.token()));
        f.apply(new Downgrade(a, 2, "r", g.token())); // a retry: applied once
        f.apply(new Downgrade(a, 3, "r", g.token())); // already shared: nothing changes
        assertThat(drain(f))
                .containsExactly(
                        granted(1, "r", a, 1, TenureEnd.NONE, 0, 1_000),
                        new Change(2, Kind.QUEUED, "r", b, 0, TenureEnd.NONE, 0, true, 1, 0, 1_000, ElectionValue.NONE),
                        new Change(
                                3,
                                Kind.DOWNGRADED,
                                "r",
                                a,
                                1,
                                TenureEnd.NONE,
                                0,
                                true,
                                0,
                                0,
                                1_020,
                                ElectionValue.NONE),
                        new Change(
                                4, Kind.GRANTED, "r", b, 2, TenureEnd.NONE, 0, true, 1, 0, 1_020, ElectionValue.NONE));
    }
}
