package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CancelWait;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.Stats;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Holder;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.WaiterView;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockRulesTest {

    @Test
    void firstGrantHasIncreasingTokensAndNoPreviousTenure() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(f.grant(a, 1, "x"))
                .isEqualTo(new Grant("x", 1, a, f.now, 1_000, TenureEnd.NONE, 0, null, Policy.NONE));
        assertThat(f.grant(a, 2, "y").token()).isEqualTo(2);
        assertThat(f.sm.lastToken()).isEqualTo(2);
    }

    @Test
    void acquireValidatesShape() {
        Fixture f = new Fixture(Fixture.small());
        long a = f.open(100);
        assertThat(code(f.apply(new Acquire(a, 1, "", 0)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Acquire(a, 1, null, 0)))).isEqualTo(Code.INVALID);
        assertThat(rejected(f.apply(new Acquire(a, 1, "123456789", 0))).message())
                .contains("lockNameBytesMax");
        assertThat(code(f.apply(new Acquire(a, 0, "x", 0)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Acquire(a, -1, "x", 0)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Acquire(a + 5, 1, "x", 0)))).isEqualTo(Code.SESSION_LOST);
        assertThat(f.apply(new Acquire(a, 1, "12345678", 0))).isInstanceOf(Granted.class);
    }

    @Test
    void retriedAcquireReturnsTheOriginalOutcome() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.now += 50;
        assertThat(f.apply(new Acquire(a, 1, "x", 0))).isEqualTo(new Granted(g));
        Result held = f.apply(new Acquire(b, 1, "x", 0));
        assertThat(held).isEqualTo(new Rejected(Code.HELD, "lock x is held (token 1)", 1));
        f.release(a, 2, "x", g.token());
        assertThat(f.apply(new Acquire(b, 1, "x", 0))).isEqualTo(held); // cached, though x is free now
        assertThat(f.sm.lastToken()).isEqualTo(1);
    }

    @Test
    void reacquireUnderANewRequestIdReturnsTheSameLease() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.now += 10;
        assertThat(f.apply(new Acquire(a, 2, "x", -1))).isEqualTo(new Granted(g));
        assertThat(f.sm.lastToken()).isEqualTo(1);
    }

    @Test
    void fifoHandoffReportsThePreviousEnd() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        Grant ga = f.grant(a, 1, "x");
        f.now += 1;
        assertThat(f.apply(new Acquire(c, 7, "x", -1))).isEqualTo(new Queued("x", 1));
        f.now += 1;
        assertThat(f.apply(new Acquire(b, 3, "x", 5_000))).isEqualTo(new Queued("x", 1));
        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.holder()).isEqualTo(new Holder(a, 1, 1_000, "a", Policy.NONE, Long.MAX_VALUE));
        assertThat(v.waiters()).containsExactly(new WaiterView(c, 1_001, "c"), new WaiterView(b, 1_002, "b"));
        assertThat(f.apply(new Acquire(c, 7, "x", -1))).isEqualTo(new Queued("x", 1)); // retry of a pending wait
        f.now += 10;
        assertThat(f.release(a, 2, "x", ga.token())).isEqualTo(new Ok());
        Grant gc = new Grant("x", 2, c, f.now, 1_000, TenureEnd.RELEASED, 1, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(c, 7, new Granted(gc)));
        assertThat(f.apply(new Acquire(b, 3, "x", 5_000))).isEqualTo(new Queued("x", 2)); // holder changed
        assertThat(f.apply(new Acquire(c, 7, "x", -1))).isEqualTo(new Granted(gc));
        f.release(c, 8, "x", 2);
        Grant gb = new Grant("x", 3, b, f.now, 1_000, TenureEnd.RELEASED, 2, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(b, 3, new Granted(gb)));
        assertThat(f.apply(new Acquire(b, 3, "x", 0))).isEqualTo(new Granted(gb));
    }

    @Test
    void staleReleaseIsNotOwnerAndChangesNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = f.grant(a, 1, "x");
        f.release(a, 2, "x", ga.token());
        Grant gb = f.grant(b, 1, "x");
        byte[] before = f.sm.snapshot();
        Rejected r = rejected(f.release(a, 3, "x", ga.token()));
        assertThat(r.code()).isEqualTo(Code.NOT_OWNER);
        assertThat(r.currentToken()).isEqualTo(gb.token());
        assertThat(r.message()).contains("current token " + gb.token());
        Rejected other = rejected(f.release(a, 4, "x", gb.token())); // right token, wrong session
        assertThat(other.code()).isEqualTo(Code.NOT_OWNER);
        assertThat(rejected(f.release(a, 5, "free", 9)).currentToken()).isZero();
        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.holder().token()).isEqualTo(gb.token());
        assertThat(f.events()).isEmpty();
        // only a's request cache changed
        StateMachine copy = StateMachine.restore(before, Limits.defaults());
        assertThat(((LockView) copy.apply(f.now, new Status("x"))).holder()).isEqualTo(v.holder());
    }

    @Test
    void retriedReleaseReturnsTheOriginalResult() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = f.grant(a, 1, "x");
        assertThat(f.release(a, 2, "x", ga.token())).isEqualTo(new Ok());
        f.grant(b, 1, "x");
        assertThat(f.release(a, 2, "x", ga.token())).isEqualTo(new Ok()); // not NOT_OWNER: it is a retry
        assertThat(((LockView) f.apply(new Status("x"))).holder().sessionId()).isEqualTo(b);
    }

    @Test
    void releaseOfAnotherSessionsLeaseIsNotOwnerAndChangesNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        f.events();
        LockView before = (LockView) f.apply(new Status("x"));
        assertThat(f.release(b, 2, "x", ga.token()))
                .isEqualTo(new Rejected(
                        Code.NOT_OWNER,
                        "token 1 of lock x is held by session 1, not 2 (current token 1; ending another"
                                + " session's lease is a forced release)",
                        1));
        assertThat(f.events()).isEmpty();
        assertThat(f.apply(new Status("x"))).isEqualTo(before); // holder, waiter, history, stale writes
        assertThat(before.holder().sessionId()).isEqualTo(a);
        assertThat(before.history()).isEmpty();
        assertThat(code(f.apply(new Release(0, 0, "x", ga.token(), true)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Release(0, 1, "x", ga.token(), true)))).isEqualTo(Code.SESSION_LOST);
        assertThat(f.apply(new Status("x"))).isEqualTo(before);
    }

    @Test
    void forcedReleaseEndsRevokedTellsTheHolderBeforeTheNextGrantAndNamesTheForcer() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "holder");
        long b = f.open(1_000, "waiter");
        long op = f.open(1_000, "ops");
        Grant ga = f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        f.events();
        f.now += 10;
        assertThat(f.apply(new Release(op, 1, "x", ga.token(), true))).isEqualTo(new Ok());
        Grant gb = new Grant("x", 2, b, f.now, 1_000, TenureEnd.REVOKED, 1, null, Policy.NONE);
        assertThat(f.events())
                .containsExactly(new LeaseEnded(a, "x", 1, TenureEnd.REVOKED), new WaitResolved(b, 1, new Granted(gb)));
        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.history())
                .containsExactly(new TenureRecord(a, 1, f.now - 10, f.now, TenureEnd.REVOKED, op, "ops"));
        assertThat(v.holder().sessionId()).isEqualTo(b);

        f.now += 10;
        assertThat(f.apply(new Release(op, 1, "x", ga.token(), true))).isEqualTo(new Ok()); // a retry
        assertThat(f.apply(new Release(op, 1, "x", gb.token(), true)))
                .isEqualTo(new Ok()); // same id: the first outcome
        assertThat(f.events()).isEmpty();
        assertThat(((LockView) f.apply(new Status("x"))).history()).isEqualTo(v.history());
        assertThat(f.apply(new Release(op, 2, "x", ga.token(), true)))
                .isEqualTo(new Rejected(
                        Code.NOT_OWNER, "token 1 is not the current lease of lock x (current token 2)", 2));
        assertThat(f.release(a, 2, "x", ga.token())).isInstanceOf(Rejected.class); // the old holder cannot end it
        assertThat(((LockView) f.apply(new Status("x"))).holder().sessionId()).isEqualTo(b);
    }

    @Test
    void forcedReleaseAppliesTheLockDelayAndTheHolderHearsFirst() {
        Fixture f = new Fixture();
        long a = f.open(10_000, "holder");
        long b = f.open(10_000, "waiter");
        long op = f.open(10_000, "ops");
        Grant ga = ((Granted) f.apply(new Acquire(a, 1, "x", 0, Policy.of(500, 0, 0)))).grant();
        f.apply(new Acquire(b, 1, "x", -1));
        f.events();
        assertThat(f.apply(new Release(op, 1, "x", ga.token(), true))).isEqualTo(new Ok());
        long ended = f.now;
        assertThat(f.events()).containsExactly(new LeaseEnded(a, "x", 1, TenureEnd.REVOKED));
        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.holder()).isNull();
        assertThat(v.delayUntilMs()).isEqualTo(ended + 500);
        assertThat(v.history()).containsExactly(new TenureRecord(a, 1, ended, ended, TenureEnd.REVOKED, op, "ops"));
        assertThat(f.apply(new Release(op, 1, "x", ga.token(), true))).isEqualTo(new Ok()); // a retry: no-op
        assertThat(f.events()).isEmpty();
        assertThat(f.apply(new Status("x"))).isEqualTo(v);

        f.advanceTo(ended + 499);
        assertThat(f.events()).isEmpty();
        f.advanceTo(ended + 500);
        Grant gb = new Grant("x", 2, b, ended + 500, 10_000, TenureEnd.REVOKED, 1, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(b, 1, new Granted(gb)));
    }

    @Test
    void aSessionMayForceItsOwnLeaseAndIsNotToldByEvent() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "self");
        Grant ga = f.grant(a, 1, "x");
        assertThat(f.apply(new Release(a, 2, "x", ga.token(), true))).isEqualTo(new Ok());
        assertThat(f.events()).isEmpty(); // its own reply tells it
        assertThat(((LockView) f.apply(new Status("x"))).history())
                .containsExactly(new TenureRecord(a, 1, f.now, f.now, TenureEnd.REVOKED, a, "self"));
    }

    @Test
    void waitZeroOnAHeldLockIsHeldWithTheHolderToken() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        Rejected r = rejected(f.apply(new Acquire(b, 1, "x", 0)));
        assertThat(r.code()).isEqualTo(Code.HELD);
        assertThat(r.currentToken()).isEqualTo(1);
    }

    @Test
    void boundedWaitTimesOutWithHeld() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        long b = f.open(10_000);
        f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", 300));
        f.advanceTo(f.now + 299);
        assertThat(f.events()).isEmpty();
        f.advanceTo(f.now + 1);
        Rejected timedOut = new Rejected(Code.HELD, "wait timed out after 300ms", 1);
        assertThat(f.events()).containsExactly(new WaitResolved(b, 1, timedOut));
        assertThat(f.apply(new Acquire(b, 1, "x", 300))).isEqualTo(timedOut);
        assertThat(((LockView) f.apply(new Status("x"))).waiters()).isEmpty();
    }

    @Test
    void waitingTwiceOnOneLockIsInvalid() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        assertThat(rejected(f.apply(new Acquire(b, 2, "x", -1))).message()).contains("request 1");
    }

    @Test
    void cancelWaitingRequest() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        assertThat(f.apply(new CancelWait(b, 1))).isEqualTo(new Ok());
        Rejected cancelled = new Rejected(Code.CANCELLED, "wait cancelled", 0);
        assertThat(f.events()).containsExactly(new WaitResolved(b, 1, cancelled));
        assertThat(f.apply(new Acquire(b, 1, "x", -1))).isEqualTo(cancelled);
        assertThat(code(f.apply(new CancelWait(b, 1)))).isEqualTo(Code.NOT_FOUND);
        assertThat(code(f.apply(new CancelWait(b, 42)))).isEqualTo(Code.NOT_FOUND);
        assertThat(code(f.apply(new CancelWait(b + 1, 1)))).isEqualTo(Code.SESSION_LOST);
    }

    /**
     * A waiting acquire's call was cut off (a reset) and its gateway withdraws it, but the client
     * already retried the same request as its next try elsewhere: the withdrawal of the earlier try
     * neither cancels the wait nor, once granted, gives the grant back. The latest try's does.
     */
    @Test
    void aWithdrawalOfAnEarlierTryOfTheRequestChangesNothing() {
        Fixture f = new Fixture();
        long[] ab = holderAndAFirstTryWaiting(f);
        long a = ab[0];
        long b = ab[1];
        f.apply(new Acquire(b, 1, "x", -1, Policy.NONE, 2)); // the retry, on another node
        Rejected superseded = rejected(f.apply(new CancelWait(b, 1, 1)));
        assertThat(superseded.code()).isEqualTo(Code.NOT_OWNER);
        assertThat(superseded.message()).contains("tried again after try 1 (latest try 2)");
        f.events();
        assertThat(f.release(a, 2, "x", ab[2])).isEqualTo(new Ok());
        List<Event> afterRelease = f.events();
        WaitResolved resolved = (WaitResolved) afterRelease.get(afterRelease.size() - 1);
        assertThat(resolved.attempt()).as("the latest try applied").isEqualTo(2);
        long token = ((Granted) resolved.result()).grant().token();
        assertThat(code(f.apply(new CancelWait(b, 1, 1)))).isEqualTo(Code.NOT_OWNER); // late again
        assertThat(((LockView) f.apply(new Status("x"))).holder().token()).isEqualTo(token);
        // the latest try's call ends unanswered: that client gave up, so the grant goes back
        assertThat(f.apply(new CancelWait(b, 1, 2))).isEqualTo(new Ok());
        assertThat(((LockView) f.apply(new Status("x"))).holder()).isNull();
        assertThat(code(f.apply(new CancelWait(b, 1, -1)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new Acquire(b, 2, "y", 0, Policy.NONE, -1)))).isEqualTo(Code.INVALID);
    }

    /**
     * A grant that reaches a waiter before its client's next try is applied names the first try
     * (0): a gateway holding that next try answers it with the try's own reply, which after a
     * withdrawal of the first try is CANCELLED, never this grant.
     */
    @Test
    void aGrantBeforeTheNextTryIsAppliedNamesNoLaterTryAndAWithdrawalThenEndsIt() {
        Fixture f = new Fixture();
        long[] ab = holderAndAFirstTryWaiting(f);
        long b = ab[1];
        f.events();
        assertThat(f.release(ab[0], 2, "x", ab[2])).isEqualTo(new Ok());
        WaitResolved resolved = (WaitResolved) f.events().get(0);
        assertThat(resolved.result()).isInstanceOf(Granted.class);
        assertThat(resolved.attempt()).isZero();
        assertThat(f.apply(new CancelWait(b, 1, 1))).isEqualTo(new Ok()); // the cut first try, withdrawn
        assertThat(((LockView) f.apply(new Status("x"))).holder()).isNull();
        Rejected retried = rejected(f.apply(new Acquire(b, 1, "x", -1, Policy.NONE, 2)));
        assertThat(retried.code()).isEqualTo(Code.CANCELLED);
        assertThat(retried.message()).contains("has already ended");
    }

    /** Session a holds "x" (request 1); b waits for it with request 1, try 1. Returns {a, b, a's token}. */
    private static long[] holderAndAFirstTryWaiting(Fixture f) {
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant ga = f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1, Policy.NONE, 1));
        return new long[] {a, b, ga.token()};
    }

    /**
     * Sessions a, b and c: a holds "x" (token 1), b then c queue for it with request 1, a releases,
     * so b holds token 2 and c waits. Returns {a, b, c}; the grant's events are consumed.
     */
    private static long[] waitersBehindAReleasedHolder(Fixture f) {
        long a = f.open(1_000);
        long b = f.open(1_000);
        long c = f.open(1_000);
        Grant ga = f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        f.apply(new Acquire(c, 1, "x", -1));
        f.release(a, 2, "x", ga.token());
        f.events();
        return new long[] {a, b, c};
    }

    @Test
    void cancelThatLostTheRaceToTheGrantReleasesTheLease() {
        Fixture f = new Fixture();
        long[] s = waitersBehindAReleasedHolder(f); // b is granted token 2 before its cancel arrives
        long b = s[1];
        long c = s[2];
        assertThat(f.apply(new CancelWait(b, 1))).isEqualTo(new Ok());
        Grant gc = new Grant("x", 3, c, f.now, 1_000, TenureEnd.RELEASED, 2, null, Policy.NONE);
        assertThat(f.events()).containsExactly(new WaitResolved(c, 1, new Granted(gc)));
        assertThat(code(f.apply(new CancelWait(b, 1)))).isEqualTo(Code.NOT_FOUND); // that lease is gone
        // a cancel for a lease that was already released and re-granted to the same session does nothing
        f.release(c, 2, "x", 3);
        Grant again = f.grant(b, 2, "x");
        assertThat(code(f.apply(new CancelWait(b, 1)))).isEqualTo(Code.NOT_FOUND);
        assertThat(((LockView) f.apply(new Status("x"))).holder().token()).isEqualTo(again.token());
    }

    @Test
    void aWithdrawnWaitDoesNotEndTheGrantALaterAcquireOfTheSessionHolds() {
        Fixture f = new Fixture();
        // b's wait is granted token 2; b gave up and does not know
        long b = waitersBehindAReleasedHolder(f)[1];
        // b acquires again before its withdrawal of request 1 reaches the log: the same lease
        Result again = f.apply(new Acquire(b, 2, "x", 0));
        assertThat(((Granted) again).grant().token()).isEqualTo(2);
        assertThat(f.apply(new CancelWait(b, 1))).isEqualTo(new Ok());
        assertThat(((LockView) f.apply(new Status("x"))).holder().token()).isEqualTo(2);
        assertThat(f.events()).isEmpty(); // c still waits
    }

    @Test
    void aReleaseSentBeforeTheSessionAcquiredTheSameLeaseAgainIsSuperseded() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        // request 2 (the release) is sent first but reaches the log after request 3 (a re-acquire)
        assertThat(((Granted) f.apply(new Acquire(a, 3, "x", 0))).grant().token())
                .isEqualTo(g.token());
        assertThat(f.apply(new Release(a, 2, "x", g.token(), false))).isEqualTo(new Ok());
        assertThat(((LockView) f.apply(new Status("x"))).holder().token()).isEqualTo(g.token());
        // a release sent after the re-acquire ends it
        assertThat(f.apply(new Release(a, 4, "x", g.token(), false))).isEqualTo(new Ok());
        assertThat(((LockView) f.apply(new Status("x"))).holder()).isNull();
    }

    @Test
    void aLeaseWithItsOwnDeadlineIsNotReentrant() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Policy bounded = new Policy(0, 5_000, 0);
        Grant g = ((Granted) f.apply(new Acquire(a, 1, "x", 0, bounded))).grant();
        Result again = f.apply(new Acquire(a, 2, "x", -1, bounded));
        assertThat(code(again)).isEqualTo(Code.HELD);
        assertThat(rejected(again).message()).contains("held by this session").contains("not re-entrant");
        assertThat(rejected(again).currentToken()).isEqualTo(g.token());
        // without a deadline of its own, the same session gets the same lease back
        Grant plain = f.grant(a, 3, "y");
        assertThat(((Granted) f.apply(new Acquire(a, 4, "y", 0))).grant()).isEqualTo(plain);
    }

    @Test
    void limitsOnWaitersAndLeasesPerSession() {
        Limits l = new Limits(
                100, // sessionTtlMsMin
                10_000, // sessionTtlMsMax
                8, // lockNameBytesMax
                8, // keyBytesMax
                4, // valueBytesMax
                4, // clientNameBytesMax
                3, // sessionsMax
                2, // leasesPerSessionMax: under test
                1_000, // locksMax
                1_000, // waitersMax
                1, // waitersPerLockMax: under test
                2, // kvKeysMax
                1L << 30, // kvBytesMax
                3, // requestIdCacheMax
                2, // historyPerLockMax
                2, // idleLocksMax
                600_000, // lockDelayMsMax
                604_800_000, // maxHoldMsMax
                16_384, // checkpointBytesMax
                1L << 30, // checkpointTotalBytesMax
                1_000, // ephemeralKeysPerSessionMax
                1_000, // permitsMax
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax
                0, // readLeaseMs
                PrincipalLimits.defaults());
        Fixture f = new Fixture(l);
        long a = f.open(1_000);
        long b = f.open(1_000);
        long c = f.open(1_000);
        f.grant(a, 1, "x");
        f.grant(a, 2, "y");
        Rejected leases = rejected(f.apply(new Acquire(a, 3, "z", 0)));
        assertThat(leases.code()).isEqualTo(Code.LIMIT);
        assertThat(leases.message()).contains("leasesPerSessionMax (2)");
        f.apply(new Acquire(b, 1, "x", -1));
        f.apply(new Acquire(b, 2, "y", -1));
        assertThat(code(f.apply(new Acquire(b, 3, "z", 0)))).isEqualTo(Code.LIMIT); // waits count as leases
        Rejected waiters = rejected(f.apply(new Acquire(c, 1, "x", -1)));
        assertThat(waiters.code()).isEqualTo(Code.LIMIT);
        assertThat(waiters.message()).contains("waitersPerLockMax (1)");
        assertThat(code(f.apply(new Acquire(c, 2, "x", 0)))).isEqualTo(Code.HELD); // no wait: no waiter limit
        // Cached like every decided outcome; a retry gets the message's first 32 characters.
        assertThat(f.apply(new Acquire(c, 1, "x", -1)))
                .isEqualTo(new Rejected(Code.LIMIT, "waitersPerLockMax (1) reached f\u2026", 0));
    }

    @Test
    void requestIdsOlderThanTheCacheWindowAreRefused() {
        Fixture f = new Fixture(Fixture.small()); // requestIdCacheMax 3
        long a = f.open(1_000);
        for (long rid = 1; rid <= 4; rid++) {
            f.apply(new Status("x"));
            f.release(a, rid, "x", 1); // NOT_OWNER, cached
        }
        assertThat(code(f.apply(new Acquire(a, 1, "x", 0)))).isEqualTo(Code.REQUEST_TOO_OLD);
        assertThat(code(f.release(a, 2, "x", 1))).isEqualTo(Code.NOT_OWNER); // still cached
        assertThat(f.apply(new Acquire(a, 5, "x", 0))).isInstanceOf(Granted.class);
        assertThat(code(f.apply(new Acquire(a, 2, "x", 0)))).isEqualTo(Code.REQUEST_TOO_OLD);
    }

    @Test
    void pendingWaitsAreNeverEvictedFromTheRequestCache() {
        Limits l = new Limits(
                100, // sessionTtlMsMin
                10_000, // sessionTtlMsMax
                8, // lockNameBytesMax
                8, // keyBytesMax
                4, // valueBytesMax
                4, // clientNameBytesMax
                3, // sessionsMax
                4, // leasesPerSessionMax
                1_000, // locksMax
                1_000, // waitersMax
                2, // waitersPerLockMax
                2, // kvKeysMax
                1L << 30, // kvBytesMax
                1, // requestIdCacheMax: one outcome per session
                2, // historyPerLockMax
                2, // idleLocksMax
                600_000, // lockDelayMsMax
                604_800_000, // maxHoldMsMax
                16_384, // checkpointBytesMax
                1L << 30, // checkpointTotalBytesMax
                1_000, // ephemeralKeysPerSessionMax
                1_000, // permitsMax
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax
                0, // readLeaseMs
                PrincipalLimits.defaults());
        Fixture f = new Fixture(l);
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        f.grant(a, 2, "y");
        f.apply(new Acquire(b, 1, "x", -1));
        f.apply(new Acquire(b, 2, "y", -1));
        assertThat(f.apply(new Acquire(b, 1, "x", -1))).isEqualTo(new Queued("x", 1));
        assertThat(f.apply(new Acquire(b, 2, "y", -1))).isEqualTo(new Queued("y", 2));
        f.release(a, 3, "x", 1);
        // once granted, request 1 is settled and the first to go; request 2 still waits and stays
        assertThat(code(f.apply(new Acquire(b, 1, "x", -1)))).isEqualTo(Code.REQUEST_TOO_OLD);
        assertThat(f.apply(new Acquire(b, 2, "y", -1))).isEqualTo(new Queued("y", 2));
    }

    @Test
    void historyKeepsTheNewestTenuresAndIdleLocksAreBounded() {
        Fixture f = new Fixture(Fixture.small()); // historyPerLockMax 2, idleLocksMax 2
        long a = f.open(1_000);
        long rid = 1;
        for (int i = 0; i < 3; i++) {
            Grant g = f.grant(a, rid++, "x");
            f.release(a, rid++, "x", g.token());
        }
        LockView x = (LockView) f.apply(new Status("x"));
        assertThat(x.history()).extracting(TenureRecord::token).containsExactly(2L, 3L);
        Grant y = f.grant(a, rid++, "y");
        f.release(a, rid++, "y", y.token());
        Grant z = f.grant(a, rid++, "z");
        f.release(a, rid++, "z", z.token()); // third idle lock: x, the oldest idle, is dropped
        assertThat(f.apply(new Stats())).isEqualTo(new Result.Stats(1, 2, 0, 5, f.now, 0));
        assertThat(((LockView) f.apply(new Status("x"))).history()).isEmpty();
        assertThat(f.grant(a, rid++, "x").previousEnd()).isEqualTo(TenureEnd.NONE);
        Grant y2 = f.grant(a, rid++, "y"); // y left the idle order when it became busy
        assertThat(y2.previousToken()).isEqualTo(y.token());
    }

    @Test
    void statusOfAnUnknownLockIsAnEmptyView() {
        Fixture f = new Fixture();
        assertThat(f.apply(new Status("nope")))
                .isEqualTo(new LockView("nope", null, List.of(), List.of(), f.now, 0, null, StaleWrites.NONE));
        assertThat(code(f.apply(new Status("")))).isEqualTo(Code.INVALID);
    }

    @Test
    void historyRecordsWithoutHistoryStillReportPreviousEnd() {
        Limits l = new Limits(
                100, // sessionTtlMsMin
                10_000, // sessionTtlMsMax
                8, // lockNameBytesMax
                8, // keyBytesMax
                4, // valueBytesMax
                4, // clientNameBytesMax
                3, // sessionsMax
                2, // leasesPerSessionMax
                1_000, // locksMax
                1_000, // waitersMax
                2, // waitersPerLockMax
                2, // kvKeysMax
                1L << 30, // kvBytesMax
                3, // requestIdCacheMax
                0, // historyPerLockMax: no history
                2, // idleLocksMax
                600_000, // lockDelayMsMax
                604_800_000, // maxHoldMsMax
                16_384, // checkpointBytesMax
                1L << 30, // checkpointTotalBytesMax
                1_000, // ephemeralKeysPerSessionMax
                1_000, // permitsMax
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax
                0, // readLeaseMs
                PrincipalLimits.defaults());
        Fixture f = new Fixture(l);
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "x");
        f.release(a, 2, "x", g.token());
        assertThat(((LockView) f.apply(new Status("x"))).history()).isEmpty();
        assertThat(f.grant(a, 3, "x").previousToken()).isEqualTo(g.token());
    }
}
