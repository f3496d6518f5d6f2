package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Command.WriteCheckpoint;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import org.junit.jupiter.api.Test;

class SemaphoreRulesTest {

    private static Acquire acquire(long sid, long rid, String lock, long waitMs, int permits) {
        return new Acquire(sid, rid, lock, waitMs, Policy.NONE, 0, permits, false);
    }

    @Test
    void upToPermitsLeasesAtOnceEachWithItsOwnIncreasingToken() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        Grant ga = ((Granted) f.apply(acquire(a, 1, "s", 0, 2))).grant();
        Grant gb = ((Granted) f.apply(acquire(b, 1, "s", 0, 2))).grant();
        assertThat(ga).isEqualTo(new Grant("s", 1, a, f.now, 1_000, TenureEnd.NONE, 0, null, Policy.NONE));
        assertThat(gb).isEqualTo(new Grant("s", 2, b, f.now, 1_000, TenureEnd.NONE, 0, null, Policy.NONE));
        assertThat(f.apply(acquire(c, 1, "s", 0, 2)))
                .isEqualTo(new Rejected(Code.HELD, "lock s is held by 2 lease(s), first token 1, with 0 waiting", 1));
        LockView v = (LockView) f.apply(new Status("s"));
        assertThat(v.permits()).isEqualTo(2);
        assertThat(v.holders()).extracting(Result.Holder::token).containsExactly(1L, 2L);
        assertThat(v.holder().token()).isEqualTo(1);
    }

    @Test
    void aReleasedPermitGoesToTheFirstWaiterInTheSameStep() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        long d = f.open(1_000, "d");
        f.apply(acquire(a, 1, "s", 0, 2));
        Grant gb = ((Granted) f.apply(acquire(b, 1, "s", 0, 2))).grant();
        assertThat(f.apply(acquire(c, 1, "s", -1, 2))).isEqualTo(new Queued("s", 1));
        assertThat(f.apply(acquire(d, 1, "s", -1, 2))).isEqualTo(new Queued("s", 1));
        f.now += 10;
        assertThat(f.release(b, 2, "s", gb.token())).isEqualTo(new Ok());
        Grant gc = new Grant("s", 3, c, f.now, 1_000, TenureEnd.RELEASED, 2, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(c, 1, new Granted(gc)));
        assertThat(((LockView) f.apply(new Status("s"))).waiters())
                .extracting(Result.WaiterView::sessionId)
                .containsExactly(d);
    }

    /** A crashed holder's session ends through the same path as a lock holder's; its permit moves on at once. */
    @Test
    void aHoldersSessionEndFreesItsPermitForTheNextWaiter() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(5_000, "b");
        long c = f.open(5_000, "c");
        f.apply(acquire(a, 1, "s", 0, 2));
        f.apply(acquire(b, 1, "s", 0, 2));
        f.apply(acquire(c, 1, "s", -1, 2));
        f.events();
        f.apply(new Command.CloseSession(a, TenureEnd.DISCONNECTED, 1));
        assertThat(f.events())
                .contains(
                        new Event.LeaseEnded(a, "s", 1, TenureEnd.DISCONNECTED),
                        new WaitResolved(
                                c,
                                1,
                                new Granted(new Grant(
                                        "s", 3, c, f.now, 5_000, TenureEnd.DISCONNECTED, 1, null, Policy.NONE))));
        LockView v = (LockView) f.apply(new Status("s"));
        assertThat(v.holders()).extracting(Result.Holder::sessionId).containsExactly(b, c);
        assertThat(v.history()).extracting(TenureRecord::token).containsExactly(1L);
    }

    @Test
    void everyAcquirerMustNameTheSamePermitsWhileTheNameIsBusy() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        Grant ga = ((Granted) f.apply(acquire(a, 1, "s", 0, 3))).grant();
        Rejected mismatch = rejected(f.apply(acquire(b, 1, "s", -1, 2)));
        assertThat(mismatch.code()).isEqualTo(Code.INVALID);
        assertThat(mismatch.message())
                .isEqualTo(
                        "lock s admits 3 lease(s) at once (permits 3), not 2: every acquirer must name the same permits");
        assertThat(code(f.apply(new Acquire(b, 2, "s", 0))))
                .as("a plain acquire names 1")
                .isEqualTo(Code.INVALID);
        assertThat(((LockView) f.apply(new Status("s"))).waiters()).isEmpty();
        f.release(a, 2, "s", ga.token());
        assertThat(f.apply(acquire(b, 3, "s", 0, 2)))
                .as("a free name takes the next acquirer's permits")
                .isInstanceOf(Granted.class);
        assertThat(((LockView) f.apply(new Status("s"))).permits()).isEqualTo(2);
    }

    @Test
    void permitsAreBoundedAndTakeNoPolicy() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(rejected(f.apply(acquire(a, 1, "s", 0, 0))).message())
                .isEqualTo("permits 0 is outside [1, permitsMax 1000]");
        assertThat(code(f.apply(acquire(a, 2, "s", 0, 1_001)))).isEqualTo(Code.INVALID);
        assertThat(rejected(f.apply(new Acquire(a, 3, "s", 0, new Policy(0, 5_000, 0), 0, 2, false)))
                        .message())
                .isEqualTo("lockDelay, maxHold and manual renewal are not supported for a semaphore (permits 2)");
        assertThat(f.apply(acquire(a, 4, "s", 0, 1_000))).isInstanceOf(Granted.class);
    }

    /**
     * permitsMax is a limit like the others: set by the log, and a change that would leave a
     * semaphore above it is refused, so that no lock ever admits more than the limit in force.
     */
    @Test
    void permitsMaxIsSetByTheLogAndCannotDropBelowAHeldSemaphore() {
        Limits three = Limits.defaults().with("permitsMax", 3);
        Fixture f = new Fixture(three);
        f.apply(Command.SetLimits.of(three, new java.util.TreeMap<>(), false, 0));
        long a = f.open(1_000);
        assertThat(rejected(f.apply(acquire(a, 1, "s", 0, 4))).message())
                .isEqualTo("permits 4 is outside [1, permitsMax 3]");
        assertThat(f.apply(acquire(a, 2, "s", 0, 3))).isInstanceOf(Granted.class);
        Rejected lowered = rejected(f.apply(
                Command.SetLimits.of(Limits.defaults().with("permitsMax", 2), new java.util.TreeMap<>(), true, 0)));
        assertThat(lowered.code()).isEqualTo(Code.LIMIT);
        assertThat(lowered.message())
                .isEqualTo("node 0's limits (permitsMax: node 0 has 2, the cluster 3) hold less than the state"
                        + " already does: lock s permits 3 (or over permitsMax); nothing changed");
        assertThat(f.sm.limits().permitsMax()).isEqualTo(3);
        assertThat(f.apply(Command.SetLimits.of(Limits.defaults(), new java.util.TreeMap<>(), true, 0)))
                .isInstanceOf(Ok.class);
        assertThat(f.apply(acquire(a, 3, "t", 0, 1_000))).isInstanceOf(Granted.class);
    }

    @Test
    void permitsOneIsThePlainLock() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.apply(acquire(a, 1, "x", 0, 1));
        assertThat(f.apply(new Acquire(b, 1, "x", 0)))
                .isEqualTo(new Rejected(Code.HELD, "lock x is held (token 1)", 1));
    }

    @Test
    void aFencedWritePassesWithAnyCurrentLeasesTokenAndNoOther() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = ((Granted) f.apply(acquire(a, 1, "s", 0, 2))).grant();
        Grant gb = ((Granted) f.apply(acquire(b, 1, "s", 0, 2))).grant();
        byte[] v = {1};
        assertThat(f.apply(new Command.Put(0, 0, "k", v, "s", ga.token()))).isEqualTo(new Result.Written(1));
        assertThat(f.apply(new Command.Put(0, 0, "k", v, "s", gb.token()))).isEqualTo(new Result.Written(2));
        assertThat(f.apply(new WriteCheckpoint(0, 0, "s", gb.token(), v, ""))).isEqualTo(new Ok());
        f.release(a, 2, "s", ga.token());
        Rejected stale = rejected(f.apply(new Command.Put(0, 0, "k", v, "s", ga.token())));
        assertThat(stale.code()).isEqualTo(Code.STALE_TOKEN);
        assertThat(stale.currentToken()).isEqualTo(gb.token());
        assertThat(code(f.apply(new WriteCheckpoint(0, 0, "s", 99, v, "")))).isEqualTo(Code.STALE_TOKEN);
    }

    @Test
    void locksMaxCountsEveryLeaseOfASemaphore() {
        Fixture f = new Fixture(Fixture.small().with("locksMax", 2));
        long a = f.open(100);
        long b = f.open(100);
        long c = f.open(100);
        f.apply(acquire(a, 1, "s", 0, 3));
        f.apply(acquire(b, 1, "s", 0, 3));
        assertThat(rejected(f.apply(acquire(c, 1, "s", 0, 3))).message()).isEqualTo("locksMax (2) reached");
        assertThat(rejected(f.apply(new Acquire(c, 2, "y", 0))).message()).isEqualTo("locksMax (2) reached");
    }

    @Test
    void aSemaphoreRoundTripsThroughASnapshot() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        long c = f.open(1_000);
        f.apply(acquire(a, 1, "s", 0, 2));
        f.apply(acquire(b, 1, "s", 0, 2));
        f.apply(acquire(c, 1, "s", -1, 2));
        byte[] snapshot = f.sm.snapshot();
        StateMachine restored = StateMachine.restore(snapshot, Limits.defaults());
        restored.checkInvariants();
        assertThat(restored.snapshot()).isEqualTo(snapshot);
        assertThat(restored.apply(f.now, new Status("s"))).isEqualTo(f.apply(new Status("s")));
    }
}
