package dev.tenure.client;

import static dev.tenure.client.Harness.KEEPALIVE;
import static dev.tenure.client.Harness.LIFETIME_NANOS;
import static dev.tenure.client.Session.State.CONNECTED;
import static dev.tenure.client.Session.State.LOST;
import static dev.tenure.client.Session.State.UNCERTAIN;
import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.TenureEnd;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keepalives, horizon, states, failover and the server's end-of-session messages. */
class SessionLivenessTest {
    /** The ceiling of the first round of reconnect backoff (Backoff): a resume starts within it. */
    private static final Duration FIRST_ROUND = Duration.ofMillis(50);

    private final Harness h = new Harness(2);

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    @Test
    void horizonIsTheOpenSendTimePlusTtlMinusMargin() {
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");

        assertThat(s.state()).isEqualTo(CONNECTED);
        assertThat(s.ttl()).isEqualTo(Harness.TTL);
        assertThat(lease.horizonNanos()).isEqualTo(t0 + LIFETIME_NANOS);
        assertThat(lease.remaining()).isEqualTo(Duration.ofNanos(LIFETIME_NANOS));

        h.time.advance(KEEPALIVE); // keepalive 1 leaves now and is acked at once
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE)).isEqualTo(1);
        assertThat(lease.horizonNanos()).isEqualTo(t0 + KEEPALIVE.toNanos() + LIFETIME_NANOS);
    }

    @Test
    void keepalivesOfSessionsOpenedAtDifferentTimesLeaveTogetherInOneMessageOnOneStream() {
        long t0 = h.time.nanoTime(); // on the keepalive grid: the harness clock starts on a second
        TenureClient client = h.client();
        Session first = client.openSession();
        h.time.advance(Duration.ofMillis(400));
        Session second = client.openSession();
        h.time.advanceTo(t0 + KEEPALIVE.toNanos() - 1);
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE)).isZero();

        h.time.advance(Duration.ofNanos(1)); // one instant renews both: the node serves one burst
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE)).isEqualTo(2);
        assertThat(h.fake.attachManyCalls).as("both sessions on one stream").hasValue(1);
        assertThat(h.fake.framesPerMessage).as("Open, Open, both keepalives").containsExactly(1, 1, 2);
        h.time.advance(KEEPALIVE.minusNanos(1));
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE)).isEqualTo(2);
        h.time.advance(Duration.ofNanos(1));
        assertThat(h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE)).isEqualTo(4);
        assertThat(first.state()).isEqualTo(CONNECTED);
        assertThat(second.state()).isEqualTo(CONNECTED);
    }

    @Test
    void ackMovesTheHorizonFromItsKeepAlivesSendTimeAndNeverBack() {
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        h.fake.acks = FakeTenure.Acks.HOLD;
        h.time.advance(KEEPALIVE); // seq 1
        h.time.advance(KEEPALIVE); // seq 2
        assertThat(h.fake.heldSeqs()).containsExactly(1L, 2L);

        h.time.advance(Duration.ofMillis(300)); // acks arrive late: the send time counts, not this
        h.fake.releaseAck(2);
        long afterSeq2 = t0 + 2 * KEEPALIVE.toNanos() + LIFETIME_NANOS;
        assertThat(lease.horizonNanos()).isEqualTo(afterSeq2);

        h.fake.releaseAck(1); // older: must not pull the horizon back
        assertThat(lease.horizonNanos()).isEqualTo(afterSeq2);
    }

    @Test
    void lostAtTheHorizonWithoutAnyServerMessage() {
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        h.fake.acks = FakeTenure.Acks.DROP;
        h.fake.answerClose = false;

        h.time.advanceTo(t0 + LIFETIME_NANOS - 1);
        assertThat(s.state()).isEqualTo(UNCERTAIN);
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.lost()).isNotDone();

        h.time.advance(Duration.ofNanos(1));
        assertThat(s.state()).isEqualTo(LOST);
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.remaining()).isZero();
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
        assertThat(s.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
        assertThat(h.events.matching("state")).containsExactly("state CONNECTED->UNCERTAIN", "state UNCERTAIN->LOST");
        assertThat(h.events.events).contains("leaseLost a HORIZON_PASSED");
        // The client tells the server it gave up, so the next waiter need not wait for the TTL,
        // and says EXPIRED: the next holder must not read a clean release into it.
        assertThat(h.fake.attachCount(AttachRequest.KindCase.CLOSE)).isEqualTo(1);
        assertThat(closeEnds()).containsExactly(TenureEnd.TENURE_END_EXPIRED);
        assertThatThrownBy(() -> s.acquire("b")).is(code(TenureException.Code.SESSION_LOST));
    }

    private List<TenureEnd> closeEnds() {
        return h.fake.attachLog.stream()
                .filter(r -> r.getKindCase() == AttachRequest.KindCase.CLOSE)
                .map(r -> r.getClose().getEnd())
                .toList();
    }

    @Test
    void aClientCloseSaysReleased() {
        Session s = h.client().openSession();
        s.acquire("a");
        s.close();
        assertThat(closeEnds()).containsExactly(TenureEnd.TENURE_END_RELEASED);
    }

    @Test
    void lateAckMakesTheSessionUncertainThenConnectedAgain() {
        Session s = h.client().openSession();
        h.fake.acks = FakeTenure.Acks.HOLD;
        h.time.advance(KEEPALIVE);
        assertThat(s.state()).isEqualTo(CONNECTED); // seq 1 not late yet
        h.time.advance(KEEPALIVE);
        assertThat(s.state()).isEqualTo(UNCERTAIN); // seq 1 waited a whole keepalive interval
        assertThat(h.events.events).contains("renewFailed TimeoutException");

        h.fake.releaseAllAcks();
        assertThat(s.state()).isEqualTo(CONNECTED);
        assertThat(h.events.matching("state"))
                .containsExactly("state CONNECTED->UNCERTAIN", "state UNCERTAIN->CONNECTED");
    }

    @Test
    void brokenStreamResumesOnTheNextEndpointAndOnlyTheResumeRenews() {
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        assertThat(h.fake.latest().node).isZero();
        h.time.advance(Duration.ofMillis(500));

        h.fake.resumes = FakeTenure.Resumes.SILENT;
        h.fake.latest().fail();
        assertThat(s.state()).isEqualTo(UNCERTAIN);
        assertThat(h.events.events).contains("renewFailed StatusRuntimeException");
        h.time.advance(FIRST_ROUND); // the first round's jitter: clients that broke together spread
        assertThat(h.fake.latest().node).isEqualTo(1);
        assertThat(h.fake.attachLog.get(h.fake.attachLog.size() - 1).getResume().getSessionId())
                .isEqualTo(s.id());
        assertThat(lease.horizonNanos()).isEqualTo(t0 + LIFETIME_NANOS); // reconnecting is no renewal

        h.fake.resumes = FakeTenure.Resumes.OPENED;
        h.time.advance(Duration.ofMillis(200));
        h.fake.latest().fail(); // the silent node fails too: a second failure in a row backs off
        assertThat(h.fake.latest().node).isEqualTo(1);
        h.time.advance(Duration.ofMillis(50));
        long resumeSent = h.time.nanoTime();
        assertThat(h.fake.latest().node).isZero(); // back to node 0, which answers
        assertThat(s.state()).isEqualTo(CONNECTED);
        assertThat(lease.horizonNanos()).isEqualTo(resumeSent + LIFETIME_NANOS);
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void reconnectingKeepsTryingWithBackoffUntilTheHorizon() {
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        h.stop(0);
        h.stop(1); // both nodes gone: the stream breaks, every resume fails
        assertThat(s.state()).isIn(UNCERTAIN, LOST);
        h.time.advanceTo(t0 + LIFETIME_NANOS - 1);
        assertThat(s.state()).isEqualTo(UNCERTAIN);
        assertThat(lease.isValid()).isTrue();
        h.time.advance(Duration.ofNanos(1));
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
    }

    @Test
    void resumeAnsweredWithSessionEndedIsLostWithTheServersReason() {
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        h.fake.resumes = FakeTenure.Resumes.ENDED; // EXPIRED
        h.fake.latest().fail();
        h.time.advance(FIRST_ROUND);
        assertThat(s.state()).isEqualTo(LOST);
        assertThat(s.lost().getNow(null)).isEqualTo(LossReason.EXPIRED);
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.EXPIRED);
    }

    @Test
    void aResumeTheNodeRefusesForThisClientLosesTheSessionAtOnceNotAtTheHorizon() {
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        h.fake.resumes = FakeTenure.Resumes.DENIED;
        h.fake.latest().fail();
        h.time.advance(FIRST_ROUND);
        assertThat(s.state()).isEqualTo(LOST);
        assertThat(s.lost().getNow(null)).isEqualTo(LossReason.REVOKED);
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.REVOKED);
    }

    @Test
    void sessionEndedFromTheServerLosesEveryLeaseWithItsReason() {
        Session s = h.client().openSession();
        Lease a = s.acquire("a");
        Lease b = s.acquire("b");
        h.fake.latest().end(TenureEnd.TENURE_END_DISCONNECTED, "connection closed");

        assertThat(s.state()).isEqualTo(LOST);
        assertThat(s.lost().getNow(null)).isEqualTo(LossReason.DISCONNECTED);
        assertThat(a.lost().getNow(null)).isEqualTo(LossReason.DISCONNECTED);
        assertThat(b.lost().getNow(null)).isEqualTo(LossReason.DISCONNECTED);
        assertThatThrownBy(() -> a.fence(Duration.ZERO))
                .is(code(TenureException.Code.LEASE_LOST))
                .hasMessageEndingWith("is lost: " + LossReason.DISCONNECTED);
    }

    @Test
    void leaseEndedFromTheServerLosesOnlyThatLease() {
        Session s = h.client().openSession();
        Lease a = s.acquire("a");
        Lease b = s.acquire("b");
        h.fake.latest().send(FakeTenure.leaseEnded("a", a.token(), TenureEnd.TENURE_END_REVOKED));

        assertThat(a.lost().getNow(null)).isEqualTo(LossReason.REVOKED);
        assertThat(a.isValid()).isFalse();
        assertThat(b.isValid()).isTrue();
        assertThat(s.state()).isEqualTo(CONNECTED);
        assertThat(h.events.events).containsOnlyOnce("leaseLost a REVOKED");
        a.release(); // already lost: nothing to send
        assertThat(h.fake.requests(ReleaseRequest.class)).isEmpty();
    }

    @Test
    void closeIsIdempotentAndReleasesEveryLease() {
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        s.close();
        s.close();

        assertThat(h.fake.attachCount(AttachRequest.KindCase.CLOSE)).isEqualTo(1);
        assertThat(s.state()).isEqualTo(LOST);
        assertThat(s.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
        lease.close();
        h.client().close();
        h.client().close();
        assertThat(h.fake.attachCount(AttachRequest.KindCase.CLOSE)).isEqualTo(1);
    }

    @Test
    void closeWithoutAnAnswerEndsAfterAShortWait() throws Exception {
        Session s = h.client().openSession();
        h.fake.answerClose = false;
        int timersBefore = h.time.pending();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(s::close);
        assertThat(h.time.awaitPending(timersBefore + 1, Duration.ofSeconds(5))).isTrue();
        h.time.advance(Duration.ofSeconds(1));
        closing.get(5, TimeUnit.SECONDS);
        assertThat(s.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
    }

    @Test
    void clientCloseClosesItsSessions() {
        Session s = h.client().openSession();
        h.client().close();
        assertThat(s.state()).isEqualTo(LOST);
        assertThatThrownBy(() -> h.client().openSession()).isInstanceOf(IllegalStateException.class);
    }
}
