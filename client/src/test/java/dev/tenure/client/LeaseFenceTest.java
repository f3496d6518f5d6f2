package dev.tenure.client;

import static dev.tenure.client.Harness.KEEPALIVE;
import static dev.tenure.client.Harness.LIFETIME_NANOS;
import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AttachRequest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** fence(minRemaining): the one call before each mutation. */
class LeaseFenceTest {
    private final Harness h = new Harness(1);
    private final ExecutorService worker = Executors.newSingleThreadExecutor();
    private long t0;
    private Lease lease;

    @BeforeEach
    void setUp() {
        t0 = h.time.nanoTime();
        lease = h.client().openSession().acquire("a");
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        worker.shutdownNow();
        h.close();
    }

    private long keepAlives() {
        return h.fake.attachCount(AttachRequest.KindCase.KEEP_ALIVE);
    }

    @Test
    void returnsTheTokenWithoutRenewingWhileEnoughIsLeft() {
        assertThat(lease.fence(Duration.ofSeconds(2))).isEqualTo(lease.token());
        assertThat(keepAlives()).isZero();
    }

    @Test
    void renewsSynchronouslyWhenTooLittleIsLeft() {
        h.fake.acks = FakeTenure.Acks.DROP;
        h.time.advance(Duration.ofMillis(2_500)); // 350 ms left
        h.fake.acks = FakeTenure.Acks.AUTO;
        long before = keepAlives();

        assertThat(lease.fence(Duration.ofSeconds(1))).isEqualTo(lease.token());
        assertThat(keepAlives()).isEqualTo(before + 1);
        assertThat(lease.horizonNanos()).isEqualTo(h.time.nanoTime() + LIFETIME_NANOS);
    }

    @Test
    void throwsLeaseLostOnceTheHorizonPassed() {
        h.fake.acks = FakeTenure.Acks.DROP;
        h.time.advanceTo(t0 + LIFETIME_NANOS);
        assertThatThrownBy(() -> lease.fence(Duration.ZERO))
                .is(code(TenureException.Code.LEASE_LOST))
                .hasMessageEndingWith("is lost: " + LossReason.HORIZON_PASSED);
    }

    @Test
    void throwsExpiringAtOnceWhenNoRenewalCouldGiveThatMuch() {
        assertThatThrownBy(() -> lease.fence(Harness.TTL)).is(code(TenureException.Code.LEASE_EXPIRING));
        assertThat(keepAlives()).isZero();
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void throwsExpiringWhenTheRenewalComesBackWithTooLittle() throws Exception {
        h.time.advance(KEEPALIVE); // acked: horizon = t0 + 1 s + 2.85 s
        h.fake.acks = FakeTenure.Acks.HOLD;
        h.time.advance(Duration.ofMillis(500)); // 2.35 s left
        CompletableFuture<Long> fencing =
                CompletableFuture.supplyAsync(() -> lease.fence(Duration.ofMillis(2_500)), worker);
        h.fake.awaitHeld(1); // the renewal is out; its ack is held
        long renewalSeq = h.fake.heldSeqs().get(0);
        h.time.advance(Duration.ofMillis(500)); // the ack takes 500 ms: it gives 2.35 s again

        h.fake.releaseAck(renewalSeq);
        assertThatThrownBy(() -> fencing.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .is(code(TenureException.Code.LEASE_EXPIRING));
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void waitingForARenewalEndsAtTheHorizon() throws Exception {
        h.fake.acks = FakeTenure.Acks.DROP;
        h.time.advance(Duration.ofMillis(2_500));
        long before = keepAlives();
        CompletableFuture<Long> fencing =
                CompletableFuture.supplyAsync(() -> lease.fence(Duration.ofSeconds(1)), worker);
        while (keepAlives() == before && !fencing.isDone()) {
            Thread.onSpinWait(); // until the renewal has left (no time passes meanwhile)
        }
        h.time.advanceTo(t0 + LIFETIME_NANOS);

        assertThatThrownBy(() -> fencing.get(5, TimeUnit.SECONDS)).cause().is(code(TenureException.Code.LEASE_LOST));
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.HORIZON_PASSED);
    }
}
