package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Proclaim;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Event.SessionEnded;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Holder;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.WaiterView;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ElectionRulesTest {

    static ElectionValue v(String s) {
        return ElectionValue.of(s.getBytes(StandardCharsets.UTF_8));
    }

    static Acquire campaign(long sid, long rid, String name, String value) {
        return new Acquire(sid, rid, name, -1, Policy.NONE, 1, 1, false, v(value));
    }

    @Test
    void campaignsQueueFifoAndCarryTheirValues() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        assertThat(f.apply(campaign(a, 1, "e", "A")))
                .isEqualTo(
                        new Granted(new Grant("e", 1, a, 1_000, 1_000, TenureEnd.NONE, 0, null, Policy.NONE, v("A"))));
        f.now = 1_010;
        assertThat(f.apply(campaign(b, 1, "e", "B"))).isEqualTo(new Queued("e", 1));
        f.now = 1_020;
        assertThat(f.apply(campaign(c, 1, "e", "C"))).isEqualTo(new Queued("e", 1));
        LockView view = (LockView) f.apply(new Status("e"));
        assertThat(view.holder())
                .isEqualTo(new Holder(a, 1, 1_000, "a", Policy.NONE, Long.MAX_VALUE, "", false, v("A")));
        assertThat(view.waiters())
                .containsExactly(
                        new WaiterView(b, 1_010, "b", "", false, v("B")),
                        new WaiterView(c, 1_020, "c", "", false, v("C")));
    }

    @Test
    void resignHandsOverAtOnceToTheFirstCandidateWithAHigherToken() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        f.apply(campaign(a, 1, "e", "A"));
        f.apply(campaign(b, 1, "e", "B"));
        f.apply(campaign(c, 1, "e", "C"));
        f.events();
        f.now = 1_100;
        assertThat(f.apply(new Release(a, 2, "e", 1, false))).isEqualTo(new Ok());
        Grant next = new Grant("e", 2, b, 1_100, 1_000, TenureEnd.RELEASED, 1, null, Policy.NONE, v("B"));
        assertThat(f.events()).containsExactly(new WaitResolved(b, 1, new Granted(next)));
        LockView view = (LockView) f.apply(new Status("e"));
        assertThat(view.holder().value()).isEqualTo(v("B"));
        assertThat(view.waiters()).containsExactly(new WaiterView(c, 1_000, "c", "", false, v("C")));
    }

    @Test
    void sessionEndHandsOverToTheNextCandidate() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        f.apply(campaign(a, 1, "e", "A"));
        f.apply(campaign(b, 1, "e", "B"));
        f.events();
        f.now = 1_200;
        f.apply(new CloseSession(a, TenureEnd.DISCONNECTED));
        Grant next = new Grant("e", 2, b, 1_200, 1_000, TenureEnd.DISCONNECTED, 1, null, Policy.NONE, v("B"));
        assertThat(f.events())
                .containsExactly(
                        new LeaseEnded(a, "e", 1, TenureEnd.DISCONNECTED),
                        new WaitResolved(b, 1, new Granted(next)),
                        new SessionEnded(a, TenureEnd.DISCONNECTED));
    }

    @Test
    void proclaimIsOwnerBoundAndDeduplicated() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        f.apply(campaign(a, 1, "e", "A"));
        f.apply(campaign(b, 1, "e", "B"));
        assertThat(f.apply(new Proclaim(a, 2, "e", 1, v("A2")))).isEqualTo(new Ok());
        assertThat(((LockView) f.apply(new Status("e"))).holder().value()).isEqualTo(v("A2"));
        // Not the holder, though the token is current: refused, nothing changes.
        assertThat(f.apply(new Proclaim(b, 2, "e", 1, v("B2"))))
                .isEqualTo(new Rejected(
                        Code.NOT_OWNER,
                        "token 1 of session " + b + " is not the current lease of lock e (current token 1)",
                        1));
        // A retry of request 2 with another value is the same request: answered Ok, not applied again.
        assertThat(f.apply(new Proclaim(a, 2, "e", 1, v("A3")))).isEqualTo(new Ok());
        assertThat(((LockView) f.apply(new Status("e"))).holder().value()).isEqualTo(v("A2"));
        // A re-entrant campaign returns the lease with the value it publishes now.
        assertThat(((Granted) f.apply(campaign(a, 3, "e", "other"))).grant().value())
                .isEqualTo(v("A2"));
    }

    @Test
    void staleProclaimIsRefusedAfterTheHandOver() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        f.apply(campaign(a, 1, "e", "A"));
        f.apply(campaign(b, 1, "e", "B"));
        f.apply(new Release(a, 2, "e", 1, false));
        assertThat(f.apply(new Proclaim(a, 3, "e", 1, v("late"))))
                .isEqualTo(new Rejected(
                        Code.NOT_OWNER,
                        "token 1 of session " + a + " is not the current lease of lock e (current token 2)",
                        2));
        assertThat(code(f.apply(new Proclaim(a, 4, "nothing", 1, v("x"))))).isEqualTo(Code.NOT_OWNER);
        assertThat(((LockView) f.apply(new Status("e"))).holder().value()).isEqualTo(v("B"));
    }

    @Test
    void valueLimitAndExclusivityAreShapeChecks() {
        Fixture f = new Fixture(Limits.defaults().with("electionValueBytesMax", 4));
        long a = f.open(1_000);
        assertThat(rejected(f.apply(campaign(a, 1, "e", "12345"))).message())
                .isEqualTo("election value is 5 bytes, over electionValueBytesMax 4");
        assertThat(rejected(f.apply(new Acquire(a, 2, "e", 0, Policy.NONE, 1, 3, false, v("x"))))
                        .message())
                .isEqualTo("an election is exclusive: a value goes with an exclusive acquire of a plain lock"
                        + " (permits 1), not permits 3");
        assertThat(code(f.apply(new Acquire(a, 3, "e", 0, Policy.NONE, 1, 1, true, v("x")))))
                .isEqualTo(Code.INVALID);
        assertThat(f.sm.lastToken()).isEqualTo(0);
        Grant g = ((Granted) f.apply(campaign(a, 4, "e", "1234"))).grant();
        assertThat(code(f.apply(new Proclaim(a, 5, "e", g.token(), v("12345")))))
                .isEqualTo(Code.INVALID);
        assertThat(((LockView) f.apply(new Status("e"))).holder().value()).isEqualTo(v("1234"));
    }

    @Test
    void electionValueTotalBytesMaxBoundsEveryValueKept() {
        Fixture f = new Fixture(Limits.defaults().with("electionValueTotalBytesMax", 5));
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant g = ((Granted) f.apply(campaign(a, 1, "e", "123"))).grant();
        assertThat(rejected(f.apply(campaign(b, 1, "e", "123"))).message())
                .isEqualTo("electionValueTotalBytesMax (5) reached: the leases and waiters carry 3 election value"
                        + " bytes and this adds 3");
        assertThat(f.apply(campaign(b, 2, "e", "12"))).isEqualTo(new Queued("e", 1));
        assertThat(code(f.apply(new Proclaim(a, 2, "e", g.token(), v("1234"))))).isEqualTo(Code.LIMIT);
        assertThat(f.apply(new Proclaim(a, 3, "e", g.token(), v("1")))).isEqualTo(new Ok());
        // The hand-over moves the candidate's bytes to its lease; the resigned leader's are freed.
        f.apply(new Release(a, 4, "e", g.token(), false));
        assertThat(f.apply(campaign(a, 5, "e", "123"))).isEqualTo(new Queued("e", 2));
        assertThat(code(f.apply(new Command.Downgrade(b, 3, "e", 2)))).isEqualTo(Code.INVALID);
    }

    @Test
    void aLeaderTokenFencesWritesLikeALocks() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.apply(campaign(a, 1, "e", "A"));
        f.apply(campaign(b, 1, "e", "B"));
        byte[] x = {1};
        assertThat(f.apply(new Command.Put(0, 0, "k", x, "e", 1))).isInstanceOf(Result.Written.class);
        f.apply(new Release(a, 2, "e", 1, false));
        assertThat(code(f.apply(new Command.Put(0, 0, "k", x, "e", 1)))).isEqualTo(Code.STALE_TOKEN);
        assertThat(f.apply(new Command.Put(0, 0, "k", x, "e", 2))).isInstanceOf(Result.Written.class);
    }

    @Test
    void plainAcquiresAndCampaignsShareOneQueue() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "e");
        assertThat(f.apply(campaign(b, 1, "e", "B"))).isEqualTo(new Queued("e", 1));
        f.release(a, 2, "e", 1);
        LockView view = (LockView) f.apply(new Status("e"));
        assertThat(view.holder().token()).isEqualTo(2);
        assertThat(view.holder().value()).isEqualTo(v("B"));
        assertThat(List.of(view.holders().get(0).sessionId())).containsExactly(b);
    }
}
