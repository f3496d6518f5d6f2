package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.Downgrade;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import java.util.List;
import org.junit.jupiter.api.Test;

class SharedLeaseRulesTest {

    private static Acquire shared(long sid, long rid, String lock, long waitMs) {
        return new Acquire(sid, rid, lock, waitMs, Policy.NONE, 0, 1, true);
    }

    private static Grant grant(Result r) {
        assertThat(r).isInstanceOf(Granted.class);
        return ((Granted) r).grant();
    }

    @Test
    void anyNumberShareALockAndAnExclusiveAcquireWaitsForAllOfThem() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        Grant ga = grant(f.apply(shared(a, 1, "r", 0)));
        Grant gb = grant(f.apply(shared(b, 1, "r", 0)));
        assertThat(f.apply(new Acquire(c, 1, "r", -1))).isEqualTo(new Queued("r", 1));
        f.release(a, 2, "r", ga.token());
        assertThat(f.events()).isEmpty();
        f.now += 5;
        f.release(b, 2, "r", gb.token());
        Grant gc = new Grant("r", 3, c, f.now, 1_000, TenureEnd.RELEASED, 2, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(c, 1, new Granted(gc)));
        assertThat(gc.token()).as("above every shared token before it").isGreaterThan(gb.token());
    }

    @Test
    void aSharedAcquireQueuesBehindAWaitingExclusiveOne() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long w = f.open(1_000, "w");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        Grant ga = grant(f.apply(shared(a, 1, "r", 0)));
        assertThat(f.apply(new Acquire(w, 1, "r", -1))).isEqualTo(new Queued("r", 1));
        assertThat(f.apply(shared(b, 1, "r", -1)))
                .as("not granted past the exclusive waiter")
                .isEqualTo(new Queued("r", 1));
        assertThat(rejected(f.apply(shared(c, 1, "r", 0))).code()).isEqualTo(Code.HELD);
        f.apply(shared(c, 2, "r", -1));
        f.release(a, 2, "r", ga.token());
        Grant gw = new Grant("r", 2, w, f.now, 1_000, TenureEnd.RELEASED, 1, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(w, 1, new Granted(gw)));
        f.now += 7;
        f.release(w, 2, "r", gw.token());
        // The shared waiters at the head go in together, in queue order.
        assertThat(f.events())
                .containsExactly(
                        new WaitResolved(
                                b,
                                1,
                                new Granted(
                                        new Grant("r", 3, b, f.now, 1_000, TenureEnd.RELEASED, 2, null, Policy.NONE))),
                        new WaitResolved(
                                c,
                                2,
                                new Granted(
                                        new Grant("r", 4, c, f.now, 1_000, TenureEnd.RELEASED, 2, null, Policy.NONE))));
        LockView v = (LockView) f.apply(new Status("r"));
        assertThat(v.holders()).extracting(Result.Holder::shared).containsExactly(true, true);
    }

    /**
     * The exclusive waiter at the head was all that held the shared ones back: when it leaves the
     * queue without a grant (here it withdraws; a timeout or its session's end does the same), the
     * shared waiters behind it join the shared holders in that very step. Found by the simulation
     * (seeds 46 and 161 of the sweep), where they stayed queued behind nobody.
     */
    @Test
    void whenAnExclusiveWaiterLeavesTheSharedOnesBehindItJoinTheSharedHolders() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long w = f.open(1_000, "w");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        Grant ga = grant(f.apply(shared(a, 1, "r", 0)));
        assertThat(f.apply(new Acquire(w, 1, "r", -1))).isEqualTo(new Queued("r", 1));
        assertThat(f.apply(shared(b, 1, "r", -1))).isEqualTo(new Queued("r", 1));
        assertThat(f.apply(new Acquire(c, 1, "r", 5_000))).isEqualTo(new Queued("r", 1));
        f.events();

        assertThat(f.apply(new Command.CancelWait(w, 1))).isEqualTo(new Ok());

        List<Event> events = f.events();
        assertThat(events).hasSize(2);
        assertThat(events.get(0)).isEqualTo(new WaitResolved(w, 1, new Rejected(Code.CANCELLED, "wait cancelled", 0)));
        WaitResolved admitted = (WaitResolved) events.get(1);
        assertThat(admitted.sessionId()).isEqualTo(b);
        assertThat(((Granted) admitted.result()).grant().token()).isEqualTo(ga.token() + 1);
        LockView v = (LockView) f.apply(new Status("r"));
        assertThat(v.holders()).extracting(Result.Holder::sessionId).containsExactly(a, b);
        assertThat(v.waiters())
                .as("the exclusive waiter behind them still waits")
                .extracting(Result.WaiterView::sessionId)
                .containsExactly(c);
    }

    @Test
    void aRunOfSharedWaitersStopsAtTheNextExclusiveOne() {
        Fixture f = new Fixture();
        long x = f.open(1_000, "x");
        long b = f.open(1_000, "b");
        long w = f.open(1_000, "w");
        long c = f.open(1_000, "c");
        Grant gx = f.grant(x, 1, "r");
        f.apply(shared(b, 1, "r", -1));
        f.apply(new Acquire(w, 1, "r", -1));
        f.apply(shared(c, 1, "r", -1));
        f.release(x, 2, "r", gx.token());
        assertThat(f.events()).extracting(e -> ((WaitResolved) e).sessionId()).containsExactly(b);
        LockView v = (LockView) f.apply(new Status("r"));
        assertThat(v.waiters()).extracting(Result.WaiterView::sessionId).containsExactly(w, c);
        assertThat(v.waiters()).extracting(Result.WaiterView::shared).containsExactly(false, true);
    }

    @Test
    void aDowngradeKeepsTheTokenAndAdmitsTheSharedWaitersAtTheHead() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long w = f.open(1_000, "w");
        Grant ga = f.grant(a, 1, "r");
        f.apply(shared(b, 1, "r", -1));
        f.apply(new Acquire(w, 1, "r", -1));
        assertThat(f.apply(new Downgrade(a, 2, "r", ga.token()))).isEqualTo(new Ok());
        Grant gb = new Grant("r", 2, b, f.now, 1_000, TenureEnd.NONE, 0, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(b, 1, new Granted(gb)));
        LockView v = (LockView) f.apply(new Status("r"));
        assertThat(v.holders()).extracting(Result.Holder::token).containsExactly(1L, 2L);
        assertThat(v.holders()).extracting(Result.Holder::shared).containsExactly(true, true);
        assertThat(f.apply(new Command.Put(0, 0, "k", new byte[] {1}, "r", ga.token())))
                .as("the downgraded lease still fences with its token")
                .isEqualTo(new Result.Written(1));
        assertThat(f.apply(new Downgrade(a, 2, "r", ga.token()))).as("a retry").isEqualTo(new Ok());
        assertThat(f.apply(new Downgrade(a, 3, "r", ga.token())))
                .as("already shared")
                .isEqualTo(new Ok());
        assertThat(code(f.apply(new Downgrade(w, 2, "r", ga.token())))).isEqualTo(Code.NOT_OWNER);
    }

    @Test
    void anUpgradeIsRefusedAndChangesNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = grant(f.apply(shared(a, 1, "r", 0)));
        f.apply(shared(b, 1, "r", 0));
        Rejected up = rejected(f.apply(new Acquire(a, 2, "r", -1)));
        assertThat(up.code()).isEqualTo(Code.INVALID);
        assertThat(up.message())
                .isEqualTo("session " + a + " holds a shared lease of lock r (token 1): upgrading to exclusive is not"
                        + " supported; release it and acquire again");
        assertThat(((LockView) f.apply(new Status("r"))).waiters()).isEmpty();
        assertThat(f.apply(shared(a, 3, "r", 0))).as("re-entrant shared").isEqualTo(new Granted(ga));
    }

    @Test
    void sharedLeasesTakeNoPermitsOrPolicyAndADowngradeNeedsAPlainLease() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(rejected(f.apply(new Acquire(a, 1, "r", 0, Policy.NONE, 0, 2, true)))
                        .message())
                .isEqualTo("a shared lease takes no permits (was 2): any number may share a lock");
        assertThat(rejected(f.apply(new Acquire(a, 2, "r", 0, new Policy(0, 0, 1_000), 0, 1, true)))
                        .message())
                .isEqualTo("lockDelay, maxHold and manual renewal are not supported for a shared lease");
        Grant bounded = grant(f.apply(new Acquire(a, 3, "m", 0, new Policy(0, 5_000, 0))));
        assertThat(code(f.apply(new Downgrade(a, 4, "m", bounded.token())))).isEqualTo(Code.INVALID);
        Grant sem = grant(f.apply(new Acquire(a, 5, "s", 0, Policy.NONE, 0, 2, false)));
        assertThat(code(f.apply(new Downgrade(a, 6, "s", sem.token())))).isEqualTo(Code.INVALID);
    }

    @Test
    void sharedLeasesAndWaitersRoundTripThroughASnapshotAndAVersion7OneReadsAsPlain() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        long w = f.open(1_000);
        long c = f.open(1_000);
        f.apply(shared(a, 1, "r", 0));
        f.apply(shared(b, 1, "r", 0));
        f.apply(new Acquire(w, 1, "r", -1));
        f.apply(shared(c, 1, "r", -1));
        byte[] snapshot = f.sm.snapshot();
        StateMachine restored = StateMachine.restore(snapshot, Limits.defaults());
        restored.checkInvariants();
        assertThat(restored.snapshot()).isEqualTo(snapshot);
        assertThat(restored.apply(f.now, new Status("r"))).isEqualTo(f.apply(new Status("r")));

        Fixture plain = new Fixture();
        long p = plain.open(1_000);
        long q = plain.open(1_000);
        plain.grant(p, 1, "x");
        plain.apply(new Acquire(q, 1, "x", -1));
        byte[] v7 = plain.sm.snapshot(7);
        assertThat(java.nio.ByteBuffer.wrap(v7).getInt(4)).isEqualTo(7);
        StateMachine old = StateMachine.restore(v7, Limits.defaults());
        LockView x = (LockView) old.apply(plain.now, new Status("x"));
        assertThat(x.permits()).isEqualTo(1);
        assertThat(x.holders()).extracting(Result.Holder::shared).containsExactly(false);
        assertThat(x.waiters()).extracting(Result.WaiterView::shared).containsExactly(false);
        assertThat(old.snapshot(7)).isEqualTo(v7);
    }
}
