package dev.tenure.client;

import static dev.tenure.client.Harness.LIFETIME_NANOS;
import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AttachRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * With a disconnect grace, the node keeps a session whose connection closed for the grace, so a
 * client trusts its leases only up to the grace after the send time of the last request its
 * stream answered (an echo, a renewal, a resume); LOST still comes at the horizon.
 */
class DisconnectGraceTest {
    private static final Duration GRACE = Duration.ofMillis(900);
    /** The grace less its default margin, max(grace/20, 20 ms). */
    private static final long GRACE_LIFETIME_NANOS = GRACE.toNanos() - GRACE.toNanos() / 20;

    private final Harness h = new Harness(2);

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    @Test
    void theDefaultGraceIs900MsAndEchoesKeepLeasesValidBetweenRenewals() {
        Session s = h.defaultsBuilder().build().openSession();
        Lease lease = s.acquire("a");
        assertThat(h.fake.attachLog.get(0).getOpen().getDisconnectGraceMs()).isEqualTo(900);
        h.time.advance(Duration.ZERO); // the flush of what is queued at this instant
        assertThat(h.fake.echoesAsked.get())
                .as("an echo with the call's first frames, and one right after the Opened")
                .isEqualTo(2);
        h.fake.acks = FakeTenure.Acks.HOLD; // no renewal confirmed from now on: only echoes prove the stream
        long echoInterval = Duration.ofMillis(900).dividedBy(8).toNanos(); // a grace/8 grid
        long graceLifetime = Duration.ofMillis(900 - 45).toNanos();
        for (int i = 0; i < 20; i++) {
            h.time.advance(Duration.ofMillis(50));
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.remaining().toNanos()).isGreaterThan(graceLifetime - echoInterval - 1);
        }
        assertThat(h.fake.echoesAsked.get()).isBetween(10, 12); // 1 s of echoes every 112.5 ms, and the first two
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE))
                .as("renewals still every TTL/3, not every grace/3")
                .isEqualTo(1);
        assertThat(lease.invalidated()).isNotDone();
    }

    @Test
    void oneEchoAnIntervalProvesEverySessionOfAClient() {
        TenureClient client = h.builder().disconnectGrace(GRACE).build();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            leases.add(client.openSession().acquire("lock-" + i));
        }
        h.time.advance(Duration.ZERO);
        h.fake.acks = FakeTenure.Acks.HOLD; // only echoes prove the sessions from now on
        int asked = h.fake.echoesAsked.get();
        h.time.advance(Duration.ofSeconds(1));
        assertThat(h.fake.echoesAsked.get() - asked)
                .as("a second of echoes every grace/8 for the whole call, not one per session")
                .isBetween(8, 9);
        long echoInterval = GRACE.dividedBy(8).toNanos();
        for (Lease lease : leases) {
            assertThat(lease.remaining().toNanos()).isGreaterThan(GRACE_LIFETIME_NANOS - echoInterval - 1);
        }
    }

    @Test
    void callsThatProveTheSessionTakeTheEchoesPlace() {
        h.fake.servesCalls = true;
        h.fake.callsProve = true;
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        h.time.advance(Duration.ofMillis(1)); // calls count only when sent after the stream was confirmed
        h.fake.acks = FakeTenure.Acks.HOLD; // no renewal confirmed: only echoes or calls prove it
        int asked = h.fake.echoesAsked.get();
        Lease held = s.acquire("held");
        for (int i = 0; i < 40; i++) { // a second of calls, one every 25 ms
            s.acquire("a").release();
            h.time.advance(Duration.ofMillis(25));
        }
        assertThat(h.fake.echoesAsked.get() - asked)
                .as("no echo while calls keep proving the session")
                .isZero();
        assertThat(held.remaining().toNanos())
                .as("proved by the last call's send time")
                .isGreaterThan(GRACE_LIFETIME_NANOS - Duration.ofMillis(26).toNanos());

        h.time.advance(GRACE.dividedBy(4)); // the calls stop: echoes take over within an interval
        assertThat(h.fake.echoesAsked.get() - asked).isPositive();
        assertThat(held.isValid()).isTrue();
    }

    @Test
    void callsThatDoNotSayTheSessionIsAttachedProveNothing() {
        h.fake.servesCalls = true; // callsProve stays false: a node that predates it
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        h.time.advance(Duration.ZERO);
        int asked = h.fake.echoesAsked.get();
        for (int i = 0; i < 40; i++) {
            s.acquire("a").release();
            h.time.advance(Duration.ofMillis(25));
        }
        assertThat(h.fake.echoesAsked.get() - asked).isBetween(8, 9);
        assertThat(h.fake.requests(AcquireRequest.class)).hasSize(40);
    }

    @Test
    void aSilentConnectionMakesLeasesInvalidWithinTheGraceAndIsReplacedAndResumed() {
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        Lease lease = s.acquire("a");
        h.time.advance(Duration.ofMillis(300)); // a few echoes answered
        long answeredAttaches = h.fake.attachCount(AttachRequest.KindCase.RESUME);
        h.fake.echoes = FakeTenure.Echoes.DROP; // the connection goes silent
        h.fake.resumes = FakeTenure.Resumes.SILENT; // and no resume is confirmed yet
        long lastAnswered = h.time.nanoTime()
                - Math.floorMod(h.time.nanoTime(), GRACE.dividedBy(8).toNanos());
        h.time.advance(GRACE.dividedBy(3).plus(GRACE.dividedBy(8)));
        assertThat(h.fake.attachCount(AttachRequest.KindCase.RESUME))
                .as("in doubt after a third of the grace: the stream is replaced and resumed")
                .isGreaterThan(answeredAttaches);
        assertThat(s.state()).isEqualTo(Session.State.UNCERTAIN);
        assertThat(lease.isValid()).as("still within the grace").isTrue();

        h.time.advanceTo(lastAnswered + GRACE_LIFETIME_NANOS);
        assertThat(lease.isValid())
                .as("the grace, less the margin, after the last answered echo")
                .isFalse();
        assertThat(lease.invalidated()).as("in doubt: no loss").isCompletedWithValue(Optional.empty());
        assertThat(lease.lost()).as("not lost: a resume may still come in time").isNotDone();
        assertThatThrownBy(() -> lease.fence(Duration.ZERO)).is(code(TenureException.Code.LEASE_EXPIRING));

        h.fake.echoes = FakeTenure.Echoes.ANSWER;
        h.fake.resumes = FakeTenure.Resumes.OPENED;
        h.fake.latest().fail(); // the silent try breaks; the next one is answered
        h.time.advance(Duration.ofMillis(100));
        assertThat(s.state()).isEqualTo(Session.State.CONNECTED);
        assertThat(lease.isValid())
                .as("valid again after a resume within the grace")
                .isTrue();
        assertThat(lease.fence(Duration.ofMillis(500))).isEqualTo(lease.token());
    }

    /**
     * {@code s} takes a lock and hears answers for a while, then its node answers nothing more, as
     * a paused one; returns the stream the session was on.
     */
    private FakeTenure.Stream holdALockThenHearNothing(Session s) {
        s.acquire("a");
        h.time.advance(Duration.ofMillis(300));
        FakeTenure.Stream first = h.fake.latest();
        h.fake.echoes = FakeTenure.Echoes.DROP;
        return first;
    }

    @Test
    void aConnectionGivenUpAsSilentIsClosedOnlyAGraceLaterSoAPausedNodeKeepsItsStreams() {
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        FakeTenure.Stream first = holdALockThenHearNothing(s);
        long resumes = h.fake.attachCount(AttachRequest.KindCase.RESUME);
        h.time.advance(GRACE.dividedBy(3).plus(GRACE.dividedBy(8)));
        assertThat(h.fake.attachCount(AttachRequest.KindCase.RESUME))
                .as("replaced: the session resumed on a new connection")
                .isGreaterThan(resumes);
        assertThat(first.clientGone)
                .as("the node is not told that the old stream ended")
                .isFalse();

        h.time.advance(GRACE);
        assertThat(first.clientGone).as("closed a grace after it was given up").isTrue();
    }

    @Test
    void aConnectionGivenUpAsSilentStaysOpenUntilItsSessionsResumedElsewhere() {
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        FakeTenure.Stream first = holdALockThenHearNothing(s);
        h.fake.resumes = FakeTenure.Resumes.SILENT; // not even to the Resumes on new connections
        h.time.advance(GRACE.dividedBy(3).plus(GRACE.dividedBy(8)));
        assertThat(s.state()).as("given up as silent").isEqualTo(Session.State.UNCERTAIN);

        h.time.advance(GRACE.multipliedBy(2));
        assertThat(first.clientGone)
                .as("two graces later, no Resume confirmed: the node may still hold the session on it")
                .isFalse();

        h.fake.echoes = FakeTenure.Echoes.ANSWER;
        h.fake.resumes = FakeTenure.Resumes.OPENED;
        h.fake.latest().fail(); // the silent try breaks; the next one is answered
        for (int i = 0; i < 20 && s.state() != Session.State.CONNECTED; i++) {
            h.time.advanceToNext();
        }
        assertThat(s.state()).isEqualTo(Session.State.CONNECTED);
        h.time.advance(GRACE);
        assertThat(first.clientGone)
                .as("closed within a grace of the Resume confirmed elsewhere")
                .isTrue();
    }

    @Test
    void aConnectionGivenUpIsClosedAtTheTtlIfItsSessionsNeverResume() {
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        FakeTenure.Stream first = holdALockThenHearNothing(s);
        h.fake.resumes = FakeTenure.Resumes.SILENT;
        long givenUpBy =
                h.time.nanoTime() + GRACE.dividedBy(3).plus(GRACE.dividedBy(8)).toNanos();
        h.time.advance(Harness.TTL.minus(GRACE));
        assertThat(first.clientGone).isFalse();
        h.time.advanceTo(givenUpBy + Harness.TTL.toNanos());
        assertThat(first.clientGone)
                .as("a node that heard nothing for a TTL has ended the session whatever the call does")
                .isTrue();
    }

    @Test
    void aShortGraceJudgesAConnectionSilentOnlyAfterTheFloor() {
        Duration grace = Duration.ofMillis(240);
        List<Long> replacedAt = new ArrayList<>();
        Session s = h.builder()
                .disconnectGrace(grace)
                .listener(new TenureListener() {
                    @Override
                    public void connectionReplaced(String endpoint, String why) {
                        replacedAt.add(h.time.nanoTime());
                    }
                })
                .build()
                .openSession();
        Lease lease = s.acquire("a");
        h.time.advance(Duration.ofMillis(300));
        h.fake.echoes = FakeTenure.Echoes.DROP;
        long silentFrom = h.time.nanoTime();
        h.time.advance(Duration.ofMillis(250));
        assertThat(lease.isValid())
                .as("the proof outlived: the grace less its margin")
                .isFalse();
        assertThat(replacedAt)
                .as("80 ms, a third of the grace, is not yet silence")
                .isEmpty();
        h.time.advance(Duration.ofMillis(100));
        assertThat(replacedAt).hasSize(1);
        long interval = grace.dividedBy(8).toNanos();
        assertThat(replacedAt.get(0) - silentFrom)
                .isBetween(ClientContext.DOUBT_MIN_NANOS, ClientContext.DOUBT_MIN_NANOS + 2 * interval);
    }

    @Test
    void aNewConnectionThatHearsNothingIsGivenLongerAtEachReplacement() throws InterruptedException {
        try (Harness one = new Harness(1)) {
            List<Long> replacedAt = new ArrayList<>();
            List<String> reasons = new ArrayList<>();
            Session s = one.defaultsBuilder()
                    .disconnectGrace(GRACE)
                    .listener(new TenureListener() {
                        @Override
                        public void connectionReplaced(String endpoint, String why) {
                            replacedAt.add(one.time.nanoTime());
                            reasons.add(why);
                        }
                    })
                    .build()
                    .openSession();
            s.acquire("a");
            one.time.advance(Duration.ofMillis(300)); // the connection has heard answers
            one.fake.echoes = FakeTenure.Echoes.DROP; // then nothing more comes back on it
            one.fake.resumes = FakeTenure.Resumes.SILENT; // nor on any new one
            one.time.advance(Duration.ofMillis(2_500));

            long doubt = GRACE.toNanos() / 3;
            assertThat(replacedAt)
                    .as("the silent connection, then two new ones that never answered")
                    .hasSizeGreaterThanOrEqualTo(3);
            assertThat(reasons.get(0)).startsWith("no echo answered");
            assertThat(reasons.get(1)).startsWith("no answer to the resume");
            // The first new connection is judged after twice the doubt time (its Resume left at
            // once); the next after four times it, plus the 50 ms backoff of a second failure.
            assertThat(replacedAt.get(1) - replacedAt.get(0)).isBetween(2 * doubt, 2 * doubt + doubt / 3);
            assertThat(replacedAt.get(2) - replacedAt.get(1))
                    .isBetween(
                            4 * doubt + Duration.ofMillis(50).toNanos(),
                            4 * doubt + Duration.ofMillis(50).toNanos() + doubt / 3);
        }
    }

    @Test
    void aSecondLapseAfterARecoveryIsToldToo() {
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        Lease first = s.acquire("a");
        h.time.advance(Duration.ofMillis(300));
        h.fake.acks = FakeTenure.Acks.HOLD; // echoes alone prove the session
        h.fake.echoes = FakeTenure.Echoes.DROP; // the connection goes silent
        h.fake.resumes = FakeTenure.Resumes.SILENT; // and so does the one that replaces it
        h.time.advance(GRACE);
        assertThat(first.invalidated()).isCompletedWithValue(Optional.empty());
        h.fake.echoes = FakeTenure.Echoes.ANSWER;
        h.fake.resumes = FakeTenure.Resumes.OPENED;
        h.fake.latest().fail(); // the silent try breaks; the next one is answered
        h.time.advance(Duration.ofMillis(100));
        Lease second = s.acquire("b");
        assertThat(second.isValid()).as("valid again after the resume").isTrue();
        h.fake.echoes = FakeTenure.Echoes.DROP;
        h.fake.resumes = FakeTenure.Resumes.SILENT;
        h.time.advance(GRACE);
        assertThat(second.invalidated())
                .as("the lease taken after the recovery hears of the next lapse")
                .isCompletedWithValue(Optional.empty());
    }

    @Test
    void aNodeWithoutEchoesIsProvedByRenewalsEveryThirdOfTheGrace() {
        h.fake.echoes = FakeTenure.Echoes.UNSUPPORTED;
        TenureClient client = h.builder().disconnectGrace(GRACE).build();
        long t0 = h.time.nanoTime();
        Session s = client.openSession();
        Lease lease = s.acquire("a");
        assertThat(h.fake.attachLog.get(0).getOpen().getDisconnectGraceMs()).isEqualTo(900);
        assertThat(lease.horizonNanos()).isEqualTo(t0 + LIFETIME_NANOS);
        assertThat(lease.remaining()).isEqualTo(Duration.ofNanos(GRACE_LIFETIME_NANOS));

        // Renewals go every grace/3, on a grid of grace/3 on the client's clock, acked at once.
        long interval = GRACE.dividedBy(3).toNanos();
        h.time.advanceTo(t0 + interval - Math.floorMod(t0, interval));
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE)).isEqualTo(1);
        long confirmed = h.time.nanoTime();
        assertThat(lease.remaining()).isEqualTo(Duration.ofNanos(GRACE_LIFETIME_NANOS));

        h.fake.acks = FakeTenure.Acks.HOLD; // the stream goes quiet: no renewal is confirmed
        h.time.advanceTo(confirmed + GRACE_LIFETIME_NANOS - 1);
        assertThat(lease.isValid()).isTrue();
        h.time.advance(Duration.ofNanos(1));
        assertThat(lease.isValid()).as("past the grace bound").isFalse();
        assertThat(lease.remaining()).isZero();
        assertThat(lease.lost()).as("not lost: the horizon is still ahead").isNotDone();

        long latest = h.fake.heldSeqs().get(h.fake.heldSeqs().size() - 1);
        long latestSent =
                confirmed + GRACE.dividedBy(3).toNanos() * h.fake.heldSeqs().size();
        h.fake.releaseAck(latest); // a late confirmation counts from its keepalive's send time
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining())
                .isEqualTo(Duration.ofNanos(latestSent + GRACE_LIFETIME_NANOS - h.time.nanoTime()));
    }

    @Test
    void aSupersededResumeIsFollowedAtOnceByOneExpectingTheAttachmentItNamed() {
        TenureClient client = h.builder().disconnectGrace(GRACE).build();
        Session s = client.openSession();
        s.acquire("a");
        h.fake.resumes = FakeTenure.Resumes.SUPERSEDED_ONCE;
        long cut = h.time.nanoTime();
        h.fake.latest().fail(); // reset: the Resume that follows hears that an earlier one was applied
        // Another session on the new connection: its answers keep the connection from looking
        // silent, as a busy client's do, so only the Superseded can move the first one on.
        client.openSession().acquire("b");
        for (int i = 0; i < 100 && s.state() != Session.State.CONNECTED; i++) {
            h.time.advanceToNext();
        }
        assertThat(s.state())
                .as("resumed again, not left waiting on a sub-stream the node ended")
                .isEqualTo(Session.State.CONNECTED);
        assertThat(h.time.nanoTime() - cut)
                .as("after a reconnect's backoff, not after the connection's silence")
                .isLessThan(GRACE.dividedBy(3).toNanos());
        List<AttachRequest> resumes = h.fake.attachLog.stream()
                .filter(r -> r.getKindCase() == AttachRequest.KindCase.RESUME)
                .toList();
        assertThat(resumes).hasSize(2);
        assertThat(resumes.get(1).getResume().getExpectedAttachment())
                .isEqualTo(resumes.get(0).getResume().getExpectedAttachment() + 1);
    }

    @Test
    void aResumedStreamIsTrustedFromTheResumesSendTime() {
        TenureClient client = h.builder().disconnectGrace(GRACE).build();
        Session s = client.openSession();
        Lease lease = s.acquire("a");
        h.fake.resumes = FakeTenure.Resumes.SILENT;
        h.fake.latest().fail(); // reset: the client resumes on the next node, which says nothing yet
        h.time.advance(Duration.ofMillis(50)); // the first round's backoff: a jitter under 50 ms
        AttachRequest resume = h.fake.attachLog.get(h.fake.attachLog.size() - 1);
        assertThat(resume.getResume().getDisconnectGraceMs()).isEqualTo(900);
        h.time.advance(Duration.ofNanos(GRACE_LIFETIME_NANOS));
        assertThat(lease.isValid()).isFalse();

        h.fake.resumes = FakeTenure.Resumes.OPENED;
        h.fake.latest().fail(); // that node fails too; after the backoff the next try is answered
        for (int i = 0; i < 20 && s.state() != Session.State.CONNECTED; i++) {
            h.time.advanceToNext(); // on a direct executor the Resume is sent and answered at a timer's instant
        }
        long resumeSent = h.time.nanoTime();
        assertThat(s.state()).isEqualTo(Session.State.CONNECTED);
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.remaining())
                .isEqualTo(Duration.ofNanos(resumeSent + GRACE_LIFETIME_NANOS - h.time.nanoTime()));
    }

    @Test
    void fenceCannotPromiseMoreThanTheGrace() {
        Session s = h.builder().disconnectGrace(GRACE).build().openSession();
        Lease lease = s.acquire("a");
        assertThat(lease.fence(Duration.ofMillis(800))).isEqualTo(lease.token());
        assertThatThrownBy(() -> lease.fence(Duration.ofSeconds(1))).is(code(TenureException.Code.LEASE_EXPIRING));
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void aGraceIsZeroOrBetween100MsAndTheTtl() {
        assertThatThrownBy(
                        () -> h.builder().disconnectGrace(Duration.ofMillis(50)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("disconnectGrace");
        assertThatThrownBy(() ->
                        h.builder().disconnectGrace(Harness.TTL.plusMillis(1)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("disconnectGrace");
        assertThatThrownBy(
                        () -> h.builder().disconnectGrace(Duration.ofMillis(-1)).build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aGraceOfZeroLeavesTheHorizonAloneToBoundTrustAndSendsNoEchoes() {
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        assertThat(h.fake.attachLog.get(0).getOpen().getDisconnectGraceMs()).isZero();
        assertThat(lease.remaining()).isEqualTo(Duration.ofNanos(LIFETIME_NANOS));
        h.time.advance(Duration.ofSeconds(2));
        assertThat(h.fake.echoesAsked.get()).isZero();
    }
}
