package dev.tenure.client;

import static dev.tenure.api.v1.TenureEnd.TENURE_END_DISCONNECTED;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED;
import static dev.tenure.api.v1.TenureEnd.TENURE_END_REVOKED;
import static dev.tenure.client.Harness.TTL;
import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.api.v1.RenewLeaseResponse;
import dev.tenure.api.v1.WriteCheckpointRequest;
import dev.tenure.api.v1.WriteCheckpointResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-grant policies, manual renewal, the lease's own horizon and checkpoints, against a scripted server. */
class PolicyLeaseTest {
    private final Harness h = new Harness(1);

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    private static long lifetime(Duration d) {
        return d.toNanos() - ClientContext.defaultMarginNanos(d.toNanos());
    }

    @Test
    void thePolicyTravelsWithTheAcquireAndTheGrantCarriesTheCheckpoint() {
        h.fake.onAcquire = r -> {
            AcquireResponse granted = h.fake.grant(r);
            return granted.toBuilder()
                    .setGrant(granted.getGrant().toBuilder()
                            .setPreviousEnd(TENURE_END_DISCONNECTED)
                            .setPreviousToken(7)
                            .setPreviousCheckpoint(FakeTenure.checkpoint("row 41", 7, 123)))
                    .build();
        };
        Session s = h.client().openSession();
        Lease lease = s.acquire(
                "a",
                AcquireOptions.builder()
                        .lockDelay(Duration.ofSeconds(2))
                        .maxHold(Duration.ofMinutes(1))
                        .renew(AcquireOptions.Renew.MANUAL)
                        .leaseTtl(Duration.ofSeconds(20))
                        .build());
        AcquireRequest sent = h.fake.requests(AcquireRequest.class).get(0);
        assertThat(sent.getPolicy().getLockDelayMs()).isEqualTo(2_000);
        assertThat(sent.getPolicy().getMaxHoldMs()).isEqualTo(60_000);
        assertThat(sent.getPolicy().getLeaseTtlMs()).isEqualTo(20_000);
        assertThat(sent.getWaitMs()).isEqualTo(-1);
        assertThat(lease.renewMode()).isEqualTo(AcquireOptions.Renew.MANUAL);
        assertThat(lease.previousEnd()).contains(LossReason.DISCONNECTED);
        Checkpoint c = lease.previousCheckpoint().orElseThrow();
        assertThat(c.text()).isEqualTo("row 41");
        assertThat(c.token()).isEqualTo(7);
        // A MANUAL lease without its own TTL takes the session's.
        h.fake.onAcquire = h.fake::grant;
        Lease b = s.acquire(
                "b", AcquireOptions.builder().renew(AcquireOptions.Renew.MANUAL).build());
        assertThat(b.leaseTtl()).isEqualTo(TTL);
        assertThat(b.previousCheckpoint()).isEmpty();
    }

    @Test
    void aManualLeaseNotRenewedIsLostAtItsOwnHorizonWhileTheSessionLives() {
        Duration leaseTtl = Duration.ofSeconds(1);
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        // The first renewal (sent right after the grant) says the full TTL is left.
        h.fake.onRenew = r -> RenewLeaseResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setRemainingMs(leaseTtl.toMillis())
                .build();
        Lease lease = s.acquire(
                "a",
                AcquireOptions.builder()
                        .renew(AcquireOptions.Renew.MANUAL)
                        .leaseTtl(leaseTtl)
                        .build());
        assertThat(lease.horizonNanos()).isEqualTo(t0 + lifetime(leaseTtl));
        assertThat(h.fake.requests(RenewLeaseRequest.class)).hasSize(1);

        // The session's keepalives go on; nothing renews the lease.
        h.time.advance(leaseTtl.minusMillis(100));
        assertThat(lease.isValid()).isTrue();
        h.time.advance(Duration.ofMillis(100));
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
        assertThat(s.state()).isEqualTo(Session.State.CONNECTED);
        assertThatThrownBy(() -> lease.fence(Duration.ZERO)).is(code(TenureException.Code.LEASE_LOST));
    }

    @Test
    void aSessionClosedAsSoonAsAManualLeaseIsLostSaysExpired() {
        Duration leaseTtl = Duration.ofSeconds(1);
        Session s = h.client().openSession();
        h.fake.onRenew = r -> RenewLeaseResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setRemainingMs(leaseTtl.toMillis())
                .build();
        Lease lease = s.acquire(
                "a",
                AcquireOptions.builder()
                        .renew(AcquireOptions.Renew.MANUAL)
                        .leaseTtl(leaseTtl)
                        .build());
        // As `tenure run` does: the moment the lease is lost, close the session.
        CompletableFuture<?> unused = lease.lost().thenCompose(reason -> s.closeAsync());

        h.time.advance(leaseTtl);
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
        assertThat(h.fake.attachLog.stream()
                        .filter(r -> r.getKindCase() == AttachRequest.KindCase.CLOSE)
                        .map(r -> r.getClose().getEnd()))
                .containsExactly(TENURE_END_EXPIRED);
    }

    @Test
    void fenceRenewsAManualLeaseThatHasTooLittleLeft() {
        Duration leaseTtl = Duration.ofSeconds(1);
        Session s = h.client().openSession();
        h.fake.onRenew = r -> RenewLeaseResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setRemainingMs(leaseTtl.toMillis())
                .build();
        Lease lease = s.acquire(
                "a",
                AcquireOptions.builder()
                        .renew(AcquireOptions.Renew.MANUAL)
                        .leaseTtl(leaseTtl)
                        .build());
        h.time.advance(Duration.ofMillis(700));
        long before = h.time.nanoTime();
        assertThat(lease.fence(Duration.ofMillis(500))).isEqualTo(lease.token());
        assertThat(h.fake.requests(RenewLeaseRequest.class)).hasSize(2);
        assertThat(lease.horizonNanos()).isEqualTo(before + lifetime(leaseTtl));
        // More than a renewal can give is refused at once.
        assertThatThrownBy(() -> lease.fence(Duration.ofSeconds(2))).is(code(TenureException.Code.LEASE_EXPIRING));
    }

    @Test
    void maxHoldBoundsTheHorizonAndNoRenewalPassesIt() {
        Duration maxHold = Duration.ofSeconds(2);
        long t0 = h.time.nanoTime();
        Session s = h.client().openSession();
        h.fake.onRenew = r -> RenewLeaseResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setRemainingMs(maxHold.toMillis())
                .build();
        Lease lease = s.acquire("a", AcquireOptions.builder().maxHold(maxHold).build());
        assertThat(lease.horizonNanos()).isEqualTo(t0 + lifetime(maxHold));
        h.time.advance(Duration.ofMillis(1_500));
        assertThatThrownBy(() -> lease.fence(Duration.ofSeconds(1))).is(code(TenureException.Code.LEASE_EXPIRING));
        h.time.advance(Duration.ofMillis(400));
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
        assertThat(s.state()).isEqualTo(Session.State.CONNECTED);
    }

    @Test
    void revokedByTheServerIsLostRevoked() {
        Session s = h.client().openSession();
        Lease lease = s.acquire(
                "a", AcquireOptions.builder().maxHold(Duration.ofMinutes(1)).build());
        h.fake.latest().send(FakeTenure.leaseEnded("a", lease.token(), TENURE_END_REVOKED));
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.REVOKED);
        assertThat(s.state()).isEqualTo(Session.State.CONNECTED);
    }

    @Test
    void checkpointIsAFencedWriteUnderTheLeasesToken() {
        Session s = h.client().openSession();
        Lease lease = s.acquire("a");
        lease.checkpoint("row 42".getBytes(StandardCharsets.UTF_8));
        WriteCheckpointRequest sent =
                h.fake.requests(WriteCheckpointRequest.class).get(0);
        assertThat(sent.getLock()).isEqualTo("a");
        assertThat(sent.getToken()).isEqualTo(lease.token());
        assertThat(sent.getSessionId()).isEqualTo(s.id());
        assertThat(sent.getValue().toStringUtf8()).isEqualTo("row 42");

        h.fake.onCheckpoint = r -> WriteCheckpointResponse.newBuilder()
                .setCode(Code.CODE_STALE_TOKEN)
                .setCurrentToken(lease.token() + 1)
                .build();
        assertThatThrownBy(() -> lease.checkpoint(new byte[] {1}))
                .isInstanceOf(StaleTokenException.class)
                .hasMessageContaining("current token is " + (lease.token() + 1));
    }

    @Test
    void optionsRefuseWhatCannotMeanAnything() {
        assertThatThrownBy(() -> AcquireOptions.builder().maxHold(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() ->
                        AcquireOptions.builder().leaseTtl(Duration.ofSeconds(1)).build())
                .hasMessageContaining("MANUAL");
    }
}
