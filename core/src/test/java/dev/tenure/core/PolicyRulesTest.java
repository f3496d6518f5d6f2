package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.RenewLease;
import dev.tenure.core.Command.Stats;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Command.WriteCheckpoint;
import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.KeepAliveResult;
import dev.tenure.core.Result.LeaseRenewed;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Per-grant policies (lock delay, maxHold, manual renewal), checkpoints and stale-write counts. */
class PolicyRulesTest {

    static final Policy DELAY_500 = new Policy(500, 0, 0);

    private static Grant granted(Result r) {
        assertThat(r).isInstanceOf(Granted.class);
        return ((Granted) r).grant();
    }

    private static LockView view(Fixture f, String lock) {
        return (LockView) f.apply(new Status(lock));
    }

    @Test
    void aPolicyOfNothingIsTheSharedNoneAndAnyOtherKeepsItsFields() {
        assertThat(Policy.of(0, 0, 0)).isSameAs(Policy.NONE);
        assertThat(Policy.of(500, 0, 0)).isEqualTo(DELAY_500).isNotSameAs(Policy.NONE);
        assertThat(Policy.of(0, 7, 9)).isEqualTo(new Policy(0, 7, 9));
    }

    @Test
    void lockDelayAfterADisconnectKeepsWaitersQueuedUntilItEnds() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        long b = f.open(10_000);
        long c = f.open(10_000);
        Grant ga = granted(f.apply(new Acquire(a, 1, "x", 0, DELAY_500)));
        assertThat(f.apply(new Acquire(b, 1, "x", -1))).isEqualTo(new Queued("x", ga.token()));
        f.apply(new CloseSession(a, TenureEnd.DISCONNECTED));
        long ended = f.now;
        assertThat(f.events())
                .containsExactly(
                        new LeaseEnded(a, "x", ga.token(), TenureEnd.DISCONNECTED),
                        new Event.SessionEnded(a, TenureEnd.DISCONNECTED));
        assertThat(view(f, "x").delayUntilMs()).isEqualTo(ended + 500);
        assertThat(view(f, "x").holder()).isNull();

        var held = rejected(f.apply(new Acquire(c, 1, "x", 0)));
        assertThat(held.code()).isEqualTo(Code.HELD);
        assertThat(held.message()).contains("lock delay until " + (ended + 500));
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(ended + 500);

        f.advanceTo(ended + 499);
        assertThat(f.events()).isEmpty();
        f.advanceTo(ended + 500);
        List<Event> events = f.events();
        assertThat(events).hasSize(1);
        Grant gb = granted(((WaitResolved) events.get(0)).result());
        assertThat(gb.previousEnd()).isEqualTo(TenureEnd.DISCONNECTED);
        assertThat(gb.previousToken()).isEqualTo(ga.token());
        assertThat(view(f, "x").delayUntilMs()).isZero();
    }

    @Test
    void noLockDelayAfterACleanRelease() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        long b = f.open(10_000);
        Grant ga = granted(f.apply(new Acquire(a, 1, "x", 0, DELAY_500)));
        f.apply(new Acquire(b, 1, "x", -1));
        assertThat(f.release(a, 2, "x", ga.token())).isEqualTo(new Ok());
        Grant gb = granted(((WaitResolved) f.events().get(0)).result());
        assertThat(gb.previousEnd()).isEqualTo(TenureEnd.RELEASED);
        assertThat(view(f, "x").delayUntilMs()).isZero();
    }

    @Test
    void lockDelayAfterExpiryAndAfterAClientGivingUpAtItsHorizon() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.apply(new Acquire(a, 1, "x", 0, DELAY_500));
        f.advanceTo(f.now + 1_000); // session expired
        assertThat(view(f, "x").delayUntilMs()).isEqualTo(f.now + 500);
        assertThat(view(f, "x").history().get(0).end()).isEqualTo(TenureEnd.EXPIRED);

        long b = f.open(10_000);
        f.advanceTo(f.now + 500);
        f.apply(new Acquire(b, 1, "y", 0, DELAY_500));
        f.apply(new CloseSession(b, TenureEnd.EXPIRED)); // the client gave up at its horizon
        LockView y = view(f, "y");
        assertThat(y.history().get(0).end()).isEqualTo(TenureEnd.EXPIRED);
        assertThat(y.delayUntilMs()).isEqualTo(f.now + 500);
    }

    @Test
    void maxHoldRevokesARenewedLeaseAndFencesItsToken() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(10_000);
        Grant ga = granted(f.apply(new Acquire(a, 1, "x", 0, new Policy(0, 2_000, 0))));
        long start = f.now;
        f.apply(new Acquire(b, 1, "x", -1));
        assertThat(view(f, "x").holder().endsAtMs()).isEqualTo(start + 2_000);
        for (long t = start + 300; t < start + 2_000; t += 300) {
            f.at(t, new KeepAlive(List.of(a, b)));
        }
        assertThat(f.events()).isEmpty();
        f.at(start + 2_000, new KeepAlive(List.of(a, b)));
        List<Event> events = f.events();
        assertThat(events.get(0)).isEqualTo(new LeaseEnded(a, "x", ga.token(), TenureEnd.REVOKED));
        Grant gb = granted(((WaitResolved) events.get(1)).result());
        assertThat(gb.previousEnd()).isEqualTo(TenureEnd.REVOKED);
        // The session lives on; only the lease was taken.
        assertThat(f.apply(new KeepAlive(List.of(a)))).isEqualTo(new KeepAliveResult(List.of()));
        var stale = rejected(f.apply(new Put(a, 2, "k", new byte[] {1}, "x", ga.token())));
        assertThat(stale.code()).isEqualTo(Code.STALE_TOKEN);
        assertThat(stale.currentToken()).isEqualTo(gb.token());
    }

    @Test
    void manualLeaseExpiresWithoutRenewalWhileItsSessionLives() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        Grant ga = granted(f.apply(new Acquire(a, 1, "x", 0, new Policy(0, 0, 400))));
        long start = f.now;
        f.at(start + 300, new KeepAlive(List.of(a))); // the session's keepalive does not renew the lease
        assertThat(f.at(start + 350, new RenewLease(a, 2, "x", ga.token()))).isEqualTo(new LeaseRenewed(400));
        f.at(start + 700, new KeepAlive(List.of(a)));
        assertThat(f.events()).isEmpty();
        f.at(start + 750, new KeepAlive(List.of(a)));
        assertThat(f.events()).containsExactly(new LeaseEnded(a, "x", ga.token(), TenureEnd.EXPIRED));
        assertThat(f.apply(new KeepAlive(List.of(a)))).isEqualTo(new KeepAliveResult(List.of()));
        assertThat(code(f.apply(new RenewLease(a, 3, "x", ga.token())))).isEqualTo(Code.NOT_OWNER);
        assertThat(view(f, "x").history().get(0).end()).isEqualTo(TenureEnd.EXPIRED);
    }

    @Test
    void renewalNeverPassesMaxHoldAndIsOwnerBound() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        long b = f.open(10_000);
        Grant ga = granted(f.apply(new Acquire(a, 1, "x", 0, new Policy(0, 600, 400))));
        long start = f.now;
        assertThat(f.at(start + 300, new RenewLease(a, 2, "x", ga.token()))).isEqualTo(new LeaseRenewed(300));
        assertThat(code(f.apply(new RenewLease(b, 1, "x", ga.token())))).isEqualTo(Code.NOT_OWNER);
        assertThat(code(f.apply(new RenewLease(a, 3, "x", ga.token() + 1)))).isEqualTo(Code.NOT_OWNER);
        // A retry returns the original answer.
        assertThat(f.apply(new RenewLease(a, 2, "x", ga.token()))).isEqualTo(new LeaseRenewed(300));
        f.advanceTo(start + 600);
        assertThat(f.events()).containsExactly(new LeaseEnded(a, "x", ga.token(), TenureEnd.REVOKED));
        // A lease its session keeps alive has nothing to renew: -1, bounded by the session only.
        Grant gy = granted(f.apply(new Acquire(a, 4, "y", 0)));
        assertThat(f.apply(new RenewLease(a, 5, "y", gy.token()))).isEqualTo(new LeaseRenewed(-1));
    }

    @Test
    void aRenewalNamingAMaxHoldMovesItsEndForwardOnlyAndOnlyForItsHolder() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        long b = f.open(10_000);
        Grant ga = granted(f.apply(new Acquire(a, 1, "x", 0, new Policy(0, 1_000, 0))));
        long start = f.now;
        f.apply(new Acquire(b, 1, "x", -1));
        // At 800 ms, a new maxHold of 2 s: revoked at 2,800, not 1,000; the answer says so.
        assertThat(f.at(start + 800, new RenewLease(a, 2, "x", ga.token(), 2_000)))
                .isEqualTo(new LeaseRenewed(2_000));
        assertThat(view(f, "x").holder().endsAtMs()).isEqualTo(start + 2_800);
        // A shorter one does not bring the end forward: the holder's horizon may count on it.
        assertThat(f.at(start + 1_000, new RenewLease(a, 3, "x", ga.token(), 500)))
                .isEqualTo(new LeaseRenewed(1_800));
        // Owner-bound, and a retry returns the original answer.
        assertThat(code(f.apply(new RenewLease(b, 2, "x", ga.token(), 5_000)))).isEqualTo(Code.NOT_OWNER);
        assertThat(f.apply(new RenewLease(a, 2, "x", ga.token(), 2_000))).isEqualTo(new LeaseRenewed(2_000));
        f.advanceTo(start + 2_799);
        assertThat(f.events()).isEmpty();
        f.advanceTo(start + 2_800);
        assertThat(f.events().get(0)).isEqualTo(new LeaseEnded(a, "x", ga.token(), TenureEnd.REVOKED));
    }

    @Test
    void aMaxHoldIsNeitherAddedToALeaseWithoutOneNorOutsideItsLimits() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        Grant gx = granted(f.apply(new Acquire(a, 1, "x", 0)));
        var none = rejected(f.apply(new RenewLease(a, 2, "x", gx.token(), 1_000)));
        assertThat(none.code()).isEqualTo(Code.INVALID);
        assertThat(none.message()).contains("no maxHold");
        assertThat(view(f, "x").holder().endsAtMs()).isEqualTo(LockRecord.NONE);
        Grant gy = granted(f.apply(new Acquire(a, 3, "y", 0, new Policy(0, 1_000, 0))));
        var small = rejected(f.apply(new RenewLease(a, 4, "y", gy.token(), 100)));
        assertThat(small.message()).contains("maxHoldMs").contains("sessionTtlMsMin");
        var big = rejected(f.apply(new RenewLease(a, 5, "y", gy.token(), 7 * 86_400_000L + 1)));
        assertThat(big.message()).contains("maxHoldMsMax");
        assertThat(view(f, "y").holder().endsAtMs()).isEqualTo(f.now + 1_000);
    }

    @Test
    void aNewTermMovesLeaseDeadlinesLikeSessionDeadlines() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        f.apply(new Acquire(a, 1, "x", 0, new Policy(0, 1_000, 400)));
        long start = f.now;
        f.sm.onNewTerm(start + 300); // the new leader's clock is 300 ms ahead
        f.sm.checkInvariants();
        // Manual deadline restarts at term + TTL; maxHold moves by the jump.
        assertThat(view(f, "x").holder().endsAtMs()).isEqualTo(start + 300 + 400);
        f.at(start + 650, new RenewLease(a, 2, "x", 1));
        assertThat(view(f, "x").holder().endsAtMs()).isEqualTo(start + 1_050);
        f.at(start + 1_000, new RenewLease(a, 3, "x", 1));
        assertThat(view(f, "x").holder().endsAtMs()).isEqualTo(start + 1_300); // maxHold moved by 300
    }

    @Test
    void checkpointIsAFencedWriteHandedToTheNextGrant() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        long b = f.open(10_000);
        Grant ga = f.grant(a, 1, "x");
        assertThat(f.apply(new WriteCheckpoint(a, 2, "x", ga.token(), new byte[] {1})))
                .isEqualTo(new Ok());
        assertThat(f.apply(new WriteCheckpoint(0, 0, "x", ga.token(), new byte[] {2})))
                .isEqualTo(new Ok());
        f.apply(new Acquire(b, 1, "x", -1));
        f.apply(new CloseSession(a, TenureEnd.DISCONNECTED));
        Grant gb = granted(((WaitResolved) f.events().get(1)).result());
        assertThat(gb.previousCheckpoint()).isEqualTo(new Checkpoint(new byte[] {2}, ga.token(), f.now));
        // The dead holder's token can no longer write it.
        var stale = rejected(f.apply(new WriteCheckpoint(0, 0, "x", ga.token(), new byte[] {3})));
        assertThat(stale.code()).isEqualTo(Code.STALE_TOKEN);
        assertThat(stale.currentToken()).isEqualTo(gb.token());
        assertThat(view(f, "x").checkpoint().value()).containsExactly(2);
        var big = rejected(f.apply(new WriteCheckpoint(b, 2, "x", gb.token(), new byte[16 * 1024 + 1])));
        assertThat(big.code()).isEqualTo(Code.INVALID);
        assertThat(big.message()).contains("checkpointBytesMax");
    }

    @Test
    void policiesOutsideTheirLimitsAreInvalidAndChangeNothing() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        var delay = rejected(f.apply(new Acquire(a, 1, "x", 0, new Policy(600_001, 0, 0))));
        assertThat(delay.message()).contains("lockDelayMsMax");
        var hold = rejected(f.apply(new Acquire(a, 2, "x", 0, new Policy(0, 100, 0))));
        assertThat(hold.message()).contains("maxHoldMs").contains("sessionTtlMsMin");
        var ttl = rejected(f.apply(new Acquire(a, 3, "x", 0, new Policy(0, 0, 3_600_001))));
        assertThat(ttl.message()).contains("leaseTtlMs").contains("sessionTtlMsMax");
        assertThat(code(f.apply(new Acquire(a, 4, "x", 0, null)))).isEqualTo(Code.INVALID);
        assertThat(view(f, "x").holder()).isNull();
        assertThat(f.sm.lastToken()).isZero();
    }

    @Test
    void everyRejectedStaleWriteIsCountedOnItsLock() {
        Fixture f = new Fixture();
        long a = f.open(10_000);
        Grant g1 = f.grant(a, 1, "x");
        f.release(a, 2, "x", g1.token());
        Grant g2 = f.grant(a, 3, "x");
        f.apply(new Put(0, 0, "k", new byte[] {1}, "x", g1.token()));
        f.apply(new Delete(a, 4, "k", "x", g1.token()));
        f.apply(new Release(a, 5, "x", g1.token(), true)); // forced, with a stale token
        f.apply(new Put(0, 0, "k", new byte[] {1}, "x", g2.token())); // current: not counted
        f.apply(new Delete(a, 4, "k", "x", g1.token())); // a retry: answered from the cache, not counted again
        StaleWrites sw = view(f, "x").staleWrites();
        assertThat(sw.count()).isEqualTo(3);
        assertThat(sw.lastToken()).isEqualTo(g1.token());
        assertThat(sw.lastCurrentToken()).isEqualTo(g2.token());
        assertThat(sw.lastTarget()).isEqualTo("release");
        assertThat(sw.lastAtMs()).isEqualTo(f.now);
        f.apply(new Put(0, 0, "k", new byte[] {1}, "never-granted", 5)); // no lock record: counted in all only
        assertThat(((Result.Stats) f.apply(new Stats())).staleWritesRejected()).isEqualTo(4);
    }
}
