package dev.tenure.core;

import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.SessionOpened;
import org.junit.jupiter.api.Test;

/** Principals: named in status and history, and bounded across all their sessions. */
class PrincipalRulesTest {
    /** Two sessions, three leases (held plus queued), one queued acquire per principal. */
    private static final PrincipalLimits TIGHT = new PrincipalLimits(16, 2, 3, 1, 1_000, 1L << 30, 1L << 30);

    private final Fixture f = new Fixture(withPrincipalLimits(TIGHT));

    private static Limits withPrincipalLimits(PrincipalLimits p) {
        Limits d = Limits.defaults();
        return new Limits(
                d.sessionTtlMsMin(),
                d.sessionTtlMsMax(),
                d.lockNameBytesMax(),
                d.keyBytesMax(),
                d.valueBytesMax(),
                d.clientNameBytesMax(),
                d.sessionsMax(),
                d.leasesPerSessionMax(),
                d.locksMax(),
                d.waitersMax(),
                d.waitersPerLockMax(),
                d.kvKeysMax(),
                d.kvBytesMax(),
                d.requestIdCacheMax(),
                d.historyPerLockMax(),
                d.idleLocksMax(),
                d.lockDelayMsMax(),
                d.maxHoldMsMax(),
                d.checkpointBytesMax(),
                d.checkpointTotalBytesMax(),
                d.ephemeralKeysPerSessionMax(),
                d.permitsMax(),
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax
                0, // readLeaseMs
                p);
    }

    private long open(String principal) {
        return ((SessionOpened) f.apply(new OpenSession(10_000, "c", SecretHash.NONE, principal))).sessionId();
    }

    @Test
    void statusAndHistoryNameEachHoldersAndForcersPrincipal() {
        long a = open("orders-worker");
        long ops = open("ops");
        Granted g = (Granted) f.apply(new Acquire(a, 1, "x", 0));
        f.apply(new Release(ops, 1, "x", g.grant().token(), true));
        long b = open("orders-worker");
        f.apply(new Acquire(b, 1, "x", 0));
        long waiter = open("ops");
        f.apply(new Acquire(waiter, 1, "x", -1));

        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.holder().principal()).isEqualTo("orders-worker");
        assertThat(v.waiters()).extracting(Result.WaiterView::principal).containsExactly("ops");
        assertThat(v.history()).hasSize(1);
        assertThat(v.history().get(0).principal()).isEqualTo("orders-worker");
        assertThat(v.history().get(0).forcedByPrincipal()).isEqualTo("ops");
    }

    @Test
    void aPrincipalsSessionsAreBoundedAcrossItsClientsAndFreedWhenTheyEnd() {
        long first = open("p");
        open("p");
        Result.Rejected r = rejected(f.apply(new OpenSession(10_000, "c", SecretHash.NONE, "p")));
        assertThat(r.code()).isEqualTo(Code.LIMIT);
        assertThat(r.message()).isEqualTo("sessionsPerPrincipalMax (2) reached by principal p");
        assertThat(f.apply(new OpenSession(10_000, "c", SecretHash.NONE, "q")))
                .as("another principal is not held back")
                .isInstanceOf(SessionOpened.class);
        assertThat(f.apply(new OpenSession(10_000, "c")))
                .as("nor a session without one")
                .isInstanceOf(SessionOpened.class);

        f.apply(new CloseSession(first, TenureEnd.RELEASED));
        assertThat(f.apply(new OpenSession(10_000, "c", SecretHash.NONE, "p"))).isInstanceOf(SessionOpened.class);
    }

    @Test
    void leasesAndWaitsAreCountedOverAllThePrincipalsSessions() {
        long a = open("p");
        long b = open("p");
        long other = open("q");
        f.apply(new Acquire(other, 1, "held", 0));
        assertThat(f.apply(new Acquire(a, 1, "l1", 0))).isInstanceOf(Granted.class);
        assertThat(f.apply(new Acquire(b, 1, "l2", 0))).isInstanceOf(Granted.class);
        assertThat(f.apply(new Acquire(b, 2, "held", -1)))
                .as("a wait counts as a lease")
                .isInstanceOf(Queued.class);

        Result.Rejected leases = rejected(f.apply(new Acquire(a, 2, "l3", 0)));
        assertThat(leases.message()).isEqualTo("leasesPerPrincipalMax (3) reached by principal p");

        f.apply(new Release(
                a, 3, "l1", ((LockView) f.apply(new Status("l1"))).holder().token(), false));
        Result.Rejected waits = rejected(f.apply(new Acquire(a, 4, "held", -1)));
        assertThat(waits.code()).isEqualTo(Code.LIMIT);
        assertThat(waits.message()).isEqualTo("waitersPerPrincipalMax (1) reached by principal p");
        assertThat(f.apply(new Acquire(a, 5, "l3", 0)))
                .as("a lease, not a wait, still fits")
                .isInstanceOf(Granted.class);
    }

    @Test
    void aSessionEndedForItsPrincipalEndsItsLeasesRevoked() {
        long a = open("p");
        Granted g = (Granted) f.apply(new Acquire(a, 1, "x", 0));
        assertThat(f.apply(new CloseSession(a, TenureEnd.REVOKED, 1))).isInstanceOf(Result.Ok.class);
        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.holder()).isNull();
        assertThat(v.history().get(0).token()).isEqualTo(g.grant().token());
        assertThat(v.history().get(0).end()).isEqualTo(TenureEnd.REVOKED);
    }

    @Test
    void aPrincipalLongerThanItsLimitIsRefused() {
        Result.Rejected r = rejected(f.apply(new OpenSession(10_000, "c", SecretHash.NONE, "a-principal-of-17")));
        assertThat(r.code()).isEqualTo(Code.INVALID);
        assertThat(r.message()).contains("principalNameBytesMax");
    }

    @Test
    void principalsSurviveASnapshot() {
        long a = open("orders-worker");
        f.apply(new Acquire(a, 1, "x", 0));
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), withPrincipalLimits(TIGHT));
        assertThat(((LockView) restored.apply(f.now, new Status("x"))).holder().principal())
                .isEqualTo("orders-worker");
        restored.apply(f.now, new OpenSession(10_000, "c", SecretHash.NONE, "orders-worker"));
        assertThat(rejected(restored.apply(f.now, new OpenSession(10_000, "c", SecretHash.NONE, "orders-worker")))
                        .message())
                .as("the restored index counts the principal's sessions")
                .contains("sessionsPerPrincipalMax");
    }
}
