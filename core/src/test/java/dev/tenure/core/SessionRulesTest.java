package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.ResumeSession;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Event.LeaseEnded;
import dev.tenure.core.Event.SessionEnded;
import dev.tenure.core.Event.WaitResolved;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.KeepAliveResult;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.SessionOpened;
import dev.tenure.core.Result.SessionResumed;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SessionRulesTest {

    @Test
    void openAssignsIncreasingIdsAndDeadline() {
        Fixture f = new Fixture();
        assertThat(f.apply(new OpenSession(1_000, "a"))).isEqualTo(new SessionOpened(1, 1_000));
        assertThat(f.apply(new OpenSession(2_000, ""))).isEqualTo(new SessionOpened(2, 2_000));
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(f.now + 1_000);
    }

    @Test
    void openValidatesTtlAndClientName() {
        Fixture f = new Fixture(Fixture.small());
        assertThat(rejected(f.apply(new OpenSession(99, "a"))).message())
                .contains("sessionTtlMsMin")
                .contains("99");
        assertThat(rejected(f.apply(new OpenSession(10_001, "a"))).message()).contains("sessionTtlMsMax");
        assertThat(code(f.apply(new OpenSession(100, null)))).isEqualTo(Code.INVALID);
        assertThat(rejected(f.apply(new OpenSession(100, "abcde"))).message())
                .contains("clientNameBytesMax")
                .contains("5");
        assertThat(code(f.apply(new OpenSession(100, "\u00e9\u00e9\u00e9")))).isEqualTo(Code.INVALID); // 6 UTF-8 bytes
        assertThat(code(f.apply(new OpenSession(100, "a\ud800")))).isEqualTo(Code.INVALID); // unpaired surrogate
        assertThat(f.apply(new OpenSession(100, "\u00e9\u00e9"))).isInstanceOf(SessionOpened.class);
        assertThat(f.apply(new OpenSession(10_000, ""))).isEqualTo(new SessionOpened(2, 10_000));
    }

    @Test
    void sessionsMaxIsALimitAndIdsAreNeverReused() {
        Fixture f = new Fixture(Fixture.small());
        f.open(100);
        f.open(100);
        long third = f.open(100);
        Result.Rejected r = rejected(f.apply(new OpenSession(100, "")));
        assertThat(r.code()).isEqualTo(Code.LIMIT);
        assertThat(r.message()).isEqualTo("sessionsMax (3) reached");
        f.apply(new CloseSession(third, TenureEnd.RELEASED));
        assertThat(f.apply(new OpenSession(100, ""))).isEqualTo(new SessionOpened(4, 100));
    }

    @Test
    void keepAliveExtendsAndReportsLostSessionsOnceInInputOrder() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.now += 600;
        Result r = f.apply(new KeepAlive(Arrays.asList(9L, a, 7L, 9L, a)));
        assertThat(r).isEqualTo(new KeepAliveResult(List.of(9L, 7L)));
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(f.now + 1_000);
        f.advanceTo(f.now + 999);
        assertThat(f.events()).isEmpty();
        f.advanceTo(f.now + 1);
        assertThat(f.events()).containsExactly(new SessionEnded(a, TenureEnd.EXPIRED));
    }

    @Test
    void keepAliveNeverShortensADeadline() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.sm.onNewTerm(f.now + 5_000); // deadline now + 6000
        long deadline = f.sm.nextDeadlineMs();
        f.apply(new KeepAlive(List.of(a)));
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(deadline);
        assertThat(code(f.apply(new KeepAlive(Arrays.asList(a, null))))).isEqualTo(Code.INVALID);
    }

    @Test
    void closeValidatesEndAndSession() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(code(f.apply(new CloseSession(a, TenureEnd.NONE)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new CloseSession(a, null)))).isEqualTo(Code.INVALID);
        assertThat(code(f.apply(new CloseSession(a + 1, TenureEnd.RELEASED)))).isEqualTo(Code.SESSION_LOST);
        assertThat(f.apply(new CloseSession(a, TenureEnd.RELEASED))).isEqualTo(new Ok());
        assertThat(code(f.apply(new CloseSession(a, TenureEnd.RELEASED)))).isEqualTo(Code.SESSION_LOST);
    }

    @Test
    void resumeRenewsAndStartsANewAttachment() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.now += 600;
        assertThat(f.apply(new ResumeSession(a))).isEqualTo(new SessionResumed(a, 1_000, 2));
        f.now += 600; // past the open's deadline: the resume renewed the session
        assertThat(f.apply(new ResumeSession(a))).isEqualTo(new SessionResumed(a, 1_000, 3));
        assertThat(code(f.apply(new ResumeSession(a + 1)))).isEqualTo(Code.SESSION_LOST);
    }

    /**
     * A Resume sent on a connection the client gave up on, applied after the one it sent next:
     * expecting the attachment the client last saw, it changes nothing, so the stream the client
     * moved to keeps the session (and a close of the given-up stream cannot end it).
     */
    @Test
    void aResumeExpectingAnEarlierAttachmentIsSupersededAndChangesNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(f.apply(new ResumeSession(a, 1))).isEqualTo(new SessionResumed(a, 1_000, 2)); // the next connection
        f.now += 300;
        assertThat(f.apply(new ResumeSession(a, 1)))
                .isEqualTo(new Result.ResumeSuperseded(a, 2)); // the given-up one, late
        assertThat(code(f.apply(new CloseSession(a, TenureEnd.DISCONNECTED, 1))))
                .isEqualTo(Code.NOT_OWNER);
        assertThat(f.apply(new ResumeSession(a, 2))).isEqualTo(new SessionResumed(a, 1_000, 3));
    }

    @Test
    void aCloseForAnEarlierAttachmentChangesNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        Grant ga = f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        f.apply(new ResumeSession(a)); // the client moved to a new connection: attachment 2
        f.events();
        // the old connection's close arrives late: the session and its lease stay
        Result.Rejected late = rejected(f.apply(new CloseSession(a, TenureEnd.DISCONNECTED, 1)));
        assertThat(late.code()).isEqualTo(Code.NOT_OWNER);
        assertThat(late.message()).contains("resumed on another connection");
        assertThat(f.events()).isEmpty();
        assertThat(((LockView) f.apply(new Status("x"))).holder().token()).isEqualTo(ga.token());
        assertThat(code(f.apply(new CloseSession(a, TenureEnd.DISCONNECTED, -1))))
                .isEqualTo(Code.INVALID);
        // the current attachment's close ends it, and so does a client's unconditional one
        assertThat(f.apply(new CloseSession(a, TenureEnd.DISCONNECTED, 2))).isEqualTo(new Ok());
        assertThat(f.events()).contains(new SessionEnded(a, TenureEnd.DISCONNECTED));
        f.apply(new ResumeSession(b));
        assertThat(f.apply(new CloseSession(b, TenureEnd.RELEASED))).isEqualTo(new Ok());
    }

    @Test
    void disconnectHandsEachLockToItsNextWaiterWithDisconnected() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        Grant ga = f.grant(a, 1, "x");
        Grant gy = f.grant(a, 2, "y");
        f.grant(c, 1, "z");
        f.apply(new Acquire(b, 1, "y", -1));
        f.apply(new Acquire(b, 2, "x", -1));
        f.apply(new Acquire(a, 3, "z", -1));
        f.events();
        f.now += 10;
        assertThat(f.apply(new CloseSession(a, TenureEnd.DISCONNECTED))).isEqualTo(new Ok());
        Grant bx = new Grant("x", 4, b, f.now, 1_000, TenureEnd.DISCONNECTED, ga.token(), null, Policy.NONE);
        Grant by = new Grant("y", 5, b, f.now, 1_000, TenureEnd.DISCONNECTED, gy.token(), null, Policy.NONE);
        assertThat(f.events())
                .containsExactly(
                        new LeaseEnded(a, "x", ga.token(), TenureEnd.DISCONNECTED),
                        new WaitResolved(b, 2, new Granted(bx)),
                        new LeaseEnded(a, "y", gy.token(), TenureEnd.DISCONNECTED),
                        new WaitResolved(b, 1, new Granted(by)),
                        new WaitResolved(
                                a, 3, new Result.Rejected(Code.SESSION_LOST, "session 1 ended (DISCONNECTED)", 0)),
                        new SessionEnded(a, TenureEnd.DISCONNECTED));
        LockView z = (LockView) f.apply(new Status("z"));
        assertThat(z.waiters()).isEmpty();
        // the retried acquire of the new holder returns its grant
        assertThat(f.apply(new Acquire(b, 2, "x", -1))).isEqualTo(new Granted(bx));
    }

    @Test
    void expiryViaAdvanceEndsLeasesWithExpiredAndHandsOver() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(5_000);
        Grant ga = f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", -1));
        f.events();
        long expiry = f.now + 1_000;
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(expiry);
        f.advanceTo(expiry + 250); // the timer fired late: everything happens at the new now
        Grant gb = new Grant("x", 2, b, expiry + 250, 5_000, TenureEnd.EXPIRED, ga.token(), null, Policy.NONE);
        assertThat(f.events())
                .containsExactly(
                        new LeaseEnded(a, "x", 1, TenureEnd.EXPIRED),
                        new WaitResolved(b, 1, new Granted(gb)),
                        new SessionEnded(a, TenureEnd.EXPIRED));
        LockView v = (LockView) f.apply(new Status("x"));
        assertThat(v.history()).containsExactly(new TenureRecord(a, 1, 1_000, expiry + 250, TenureEnd.EXPIRED));
        assertThat(code(f.apply(new Acquire(a, 2, "x", 0)))).isEqualTo(Code.SESSION_LOST);
    }

    @Test
    void applyFiresDueDeadlinesBeforeTheCommand() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.grant(a, 1, "x");
        long b = f.open(5_000);
        f.events();
        // The acquire is stamped after a's deadline: a expires first, so b gets the lock at once.
        Result r = f.at(f.now + 2_000, new Acquire(b, 1, "x", 0));
        assertThat(r).isInstanceOf(Granted.class);
        assertThat(((Granted) r).grant().previousEnd()).isEqualTo(TenureEnd.EXPIRED);
    }

    @Test
    void sessionExpiryFiresBeforeAWaitTimeoutDueAtTheSameTime() {
        Fixture f = new Fixture();
        long a = f.open(2_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        f.apply(new Acquire(b, 1, "x", 1_000)); // b's wait and b's session are both due at now + 1000
        f.events();
        f.advanceTo(f.now + 1_000);
        List<Event> events = f.events();
        assertThat(events)
                .containsExactly(
                        new WaitResolved(b, 1, new Result.Rejected(Code.SESSION_LOST, "session 2 ended (EXPIRED)", 0)),
                        new SessionEnded(b, TenureEnd.EXPIRED));
    }

    @Test
    void timeRunsForwardOnly() {
        Fixture f = new Fixture();
        f.open(1_000);
        f.at(500, new Status("x"));
        assertThat(f.sm.nowMs()).isEqualTo(1_000);
    }

    @Test
    void onNewTermExtendsSessionDeadlinesButNotWaitsAndFiresNothing() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(10_000);
        f.grant(b, 1, "x");
        f.apply(new Acquire(a, 1, "x", 500));
        f.events();
        long t0 = f.now;
        f.sm.onNewTerm(t0 + 3_000); // past a's session deadline and its wait deadline
        assertThat(f.sm.nowMs()).isEqualTo(t0 + 3_000);
        assertThat(f.events()).isEmpty();
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(t0 + 500); // the wait, left as it was
        f.advanceTo(t0 + 3_000);
        assertThat(f.events())
                .containsExactly(
                        new WaitResolved(a, 1, new Result.Rejected(Code.HELD, "wait timed out after 500ms", 1)));
        f.advanceTo(t0 + 3_999);
        assertThat(f.events()).isEmpty(); // a now lives until t0 + 3000 + 1000
        f.advanceTo(t0 + 4_000);
        assertThat(f.events()).containsExactly(new SessionEnded(a, TenureEnd.EXPIRED));
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(t0 + 3_000 + 10_000);
    }

    @Test
    void onNewTermNeverShortensADeadline() {
        Fixture f = new Fixture();
        f.open(1_000);
        long deadline = f.sm.nextDeadlineMs();
        f.sm.onNewTerm(f.now - 900);
        assertThat(f.sm.nextDeadlineMs()).isEqualTo(deadline);
        assertThat(f.sm.nowMs()).isEqualTo(f.now);
    }
}
