package dev.tenure.client;

import static dev.tenure.api.v1.TenureEnd.TENURE_END_EXPIRED;
import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.Grant;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import io.grpc.Status;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Acquire and release: requests sent, codes mapped, retries, cancellation. */
class AcquireTest {
    private final Harness h = new Harness(2);
    private Session session;

    @BeforeEach
    void setUp() {
        session = h.client().openSession();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        h.close();
    }

    private AcquireRequest lastAcquire() {
        var all = h.fake.requests(AcquireRequest.class);
        return all.get(all.size() - 1);
    }

    @Test
    void acquireReturnsTheGrantAsALease() {
        h.fake.onAcquire = r -> AcquireResponse.newBuilder()
                .setCode(Code.CODE_OK)
                .setGrant(Grant.newBuilder()
                        .setLock(r.getLock())
                        .setToken(77)
                        .setSessionId(r.getSessionId())
                        .setGrantedAtMs(1234)
                        .setTtlMs(3000)
                        .setPreviousEnd(TENURE_END_EXPIRED)
                        .setPreviousToken(70))
                .build();
        Lease lease = session.acquire("orders");

        assertThat(lastAcquire().getWaitMs()).isEqualTo(-1);
        assertThat(lastAcquire().getSessionId()).isEqualTo(session.id());
        assertThat(lastAcquire().getRequestId()).isEqualTo(1);
        assertThat(lease.lock()).isEqualTo("orders");
        assertThat(lease.token()).isEqualTo(77);
        assertThat(lease.sessionId()).isEqualTo(session.id());
        assertThat(lease.previousEnd()).contains(LossReason.EXPIRED);
        assertThat(lease.previousToken()).isEqualTo(70);
        assertThat(lease.grantedAt()).isEqualTo(Instant.ofEpochMilli(1234));
        assertThat(lease.sessionTtl()).isEqualTo(Duration.ofSeconds(3));
        assertThat(lease.isValid()).isTrue();
        assertThat(h.events.events).containsSubsequence("acquireStart orders", "acquireEnd orders 77");
    }

    @Test
    void timedOutWaitThrowsLockHeldWithTheHoldersToken() {
        h.fake.onAcquire = r -> AcquireResponse.newBuilder()
                .setCode(Code.CODE_HELD)
                .setHolderToken(42)
                .build();
        assertThatThrownBy(() -> session.acquire("a", Duration.ofMillis(250)))
                .is(code(TenureException.Code.LOCK_HELD))
                .hasMessageContaining("holder token 42");
        assertThat(lastAcquire().getWaitMs()).isEqualTo(250);
        assertThat(h.events.events).contains("acquireFailed a LOCK_HELD");
    }

    /**
     * A try of the acquire was cut and its node withdrew the wait (or gave back the grant) before
     * the next try reached the log: the server answers CANCELLED though the caller still waits.
     * The client asks again as a new request, with what is left of the wait.
     */
    @Test
    void anAcquireCancelledByTheServerWhileItsCallerWaitsIsAskedAgainAsANewRequest() {
        h.fake.onAcquire = r -> r.getRequestId() == 1 ? FakeTenure.code(Code.CODE_CANCELLED) : h.fake.grant(r);
        Lease lease = session.acquire("a", Duration.ofSeconds(30));

        assertThat(lease.lock()).isEqualTo("a");
        assertThat(h.fake.acquireRequestIds()).containsExactly(1L, 2L);
        var tries = h.fake.requests(AcquireRequest.class);
        assertThat(tries.get(1).getWaitMs()).isBetween(1L, 30_000L);
        assertThat(h.events.events).contains("acquireEnd a " + lease.token());
    }

    @Test
    void anAcquireTheServerKeepsCancellingFailsAfterABoundedNumberOfRequests() {
        h.fake.onAcquire = r -> FakeTenure.code(Code.CODE_CANCELLED);
        assertThatThrownBy(() -> session.acquire("a"))
                .isInstanceOf(TenureException.class)
                .hasMessageContaining("cancelled")
                .hasMessageContaining("scripted CODE_CANCELLED");
        assertThat(h.fake.acquireRequestIds()).containsExactly(1L, 2L, 3L, 4L);
        assertThat(h.fake.requests(AcquireRequest.class))
                .extracting(AcquireRequest::getWaitMs)
                .containsOnly(-1L);
    }

    @Test
    void tryAcquireIsEmptyWhenHeld() {
        h.fake.onAcquire = r -> FakeTenure.code(Code.CODE_HELD);
        assertThat(session.tryAcquire("a")).isEmpty();
        assertThat(lastAcquire().getWaitMs()).isZero();
        h.fake.onAcquire = h.fake::grant;
        assertThat(session.tryAcquire("a")).isPresent();
    }

    @Test
    void acquireAsyncCompletesWhenTheServerGrants() throws Exception {
        h.fake.onAcquire = r -> null; // park
        CompletableFuture<Lease> f = session.acquireAsync("a", Duration.ofSeconds(10));
        FakeTenure.Parked parked = h.fake.parked.poll(5, TimeUnit.SECONDS);
        assertThat(parked.request().getWaitMs()).isEqualTo(10_000);
        assertThat(f).isNotDone();
        parked.answer(h.fake.grant(parked.request()));
        assertThat(f.get(5, TimeUnit.SECONDS).lock()).isEqualTo("a");
    }

    @Test
    void cancellingAcquireAsyncWithdrawsTheServerWait() throws Exception {
        h.fake.onAcquire = r -> null;
        CompletableFuture<Lease> f = session.acquireAsync("a", (Duration) null);
        h.fake.parked.poll(5, TimeUnit.SECONDS);
        f.cancel(true);
        assertThat(h.fake.cancelledWaits.poll(5, TimeUnit.SECONDS)).isNotNull();
        assertThatThrownBy(f::join).isInstanceOf(CancellationException.class);
        assertThat(h.events.events).contains("acquireFailed a OTHER");
    }

    @Test
    void losingTheSessionFailsAWaitingAcquire() throws Exception {
        h.fake.onAcquire = r -> null;
        CompletableFuture<Lease> f = session.acquireAsync("a", (Duration) null);
        h.fake.parked.poll(5, TimeUnit.SECONDS);
        h.fake.latest().end(TENURE_END_EXPIRED, "expired");
        assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).cause().is(code(TenureException.Code.SESSION_LOST));
        assertThat(h.fake.cancelledWaits.poll(5, TimeUnit.SECONDS)).isNotNull();
    }

    @ParameterizedTest
    @EnumSource(
            value = Code.class,
            names = {"CODE_SESSION_LOST", "CODE_LIMIT", "CODE_INVALID", "CODE_REQUEST_TOO_OLD", "CODE_CANCELLED"})
    void codesMapToTypedExceptions(Code code) {
        h.fake.onAcquire = r -> FakeTenure.code(code);
        TenureException.Code expected = switch (code) {
            case CODE_SESSION_LOST -> TenureException.Code.SESSION_LOST;
            case CODE_LIMIT -> TenureException.Code.LIMIT_EXCEEDED;
            case CODE_INVALID -> TenureException.Code.INVALID_REQUEST;
            default -> TenureException.Code.OTHER;
        };
        assertThatThrownBy(() -> session.acquire("a", Duration.ofSeconds(1)))
                .isExactlyInstanceOf(TenureException.class)
                .is(code(expected))
                .hasMessageContaining("'a'");
        if (code == Code.CODE_SESSION_LOST) {
            assertThat(session.state()).isEqualTo(Session.State.LOST);
            assertThat(session.lost().getNow(null)).isEqualTo(LossReason.SESSION_ENDED);
        }
    }

    @Test
    void retryAfterUnavailableReusesTheRequestIdOnTheNextEndpoint() {
        h.fake.unavailableNext.set(1);
        CompletableFuture<Lease> a = session.acquireAsync("a", (Duration) null);
        h.time.advance(Duration.ofMillis(50)); // the first round's backoff: a jitter under 50 ms
        assertThat(a).isCompleted();
        session.acquire("b");
        assertThat(h.fake.acquireRequestIds()).containsExactly(1L, 1L, 2L);
        assertThat(h.fake.requestNodes).containsExactly(0, 1, 1);
    }

    @Test
    void invalidArgumentIsNeverRetried() {
        h.fake.onAcquire = r -> {
            throw Status.INVALID_ARGUMENT
                    .withDescription("lock name longer than 256 bytes")
                    .asRuntimeException();
        };
        assertThatThrownBy(() -> session.acquire("a"))
                .is(code(TenureException.Code.INVALID_REQUEST))
                .hasMessageContaining("256");
        assertThat(h.fake.acquireRequestIds()).containsExactly(1L);
    }

    @Test
    void releaseIsACompareAndDeleteSentOnce() {
        Lease lease = session.acquire("a");
        lease.release();
        lease.release();
        lease.close();

        assertThat(h.fake.requests(ReleaseRequest.class)).singleElement().satisfies(r -> {
            assertThat(r.getToken()).isEqualTo(lease.token());
            assertThat(r.getSessionId()).isEqualTo(session.id());
            assertThat(r.getForce()).isFalse();
            assertThat(r.getRequestId()).isEqualTo(2);
        });
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void releaseOfALeaseTheServerNoLongerCountsThrowsNotOwner() {
        Lease lease = session.acquire("a");
        Lease other = session.acquire("b");
        h.fake.onRelease = r -> ReleaseResponse.newBuilder()
                .setCode(Code.CODE_NOT_OWNER)
                .setCurrentToken(99)
                .build();
        assertThatThrownBy(lease::release).isInstanceOfSatisfying(StaleTokenException.class, e -> {
            assertThat(e.code()).isEqualTo(TenureException.Code.NOT_OWNER);
            assertThat(e.currentToken()).isEqualTo(99);
        });
        assertThat(lease.isValid()).isFalse();
        other.close(); // close never throws on ownership
        assertThat(other.isValid()).isFalse();
    }

    @Test
    void releaseByTokenIsOwnerBoundAndForceReleaseIsExplicit() {
        Lease lease = session.acquire("a");
        session.release("a", lease.token());
        ReleaseRequest own = h.fake.requests(ReleaseRequest.class).get(0);
        assertThat(own.getForce()).isFalse();
        assertThat(own.getSessionId()).isEqualTo(session.id());
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.RELEASED);

        Lease b = session.acquire("b");
        session.forceRelease("b", b.token());
        ReleaseRequest forced = h.fake.requests(ReleaseRequest.class).get(1);
        assertThat(forced.getForce()).isTrue();
        assertThat(forced.getSessionId()).isEqualTo(session.id());
        assertThat(forced.getToken()).isEqualTo(b.token());
        assertThat(b.lost().getNow(null)).isEqualTo(LossReason.REVOKED);

        h.fake.onRelease = r -> ReleaseResponse.newBuilder()
                .setCode(Code.CODE_NOT_OWNER)
                .setCurrentToken(5)
                .build();
        assertThatThrownBy(() -> session.release("a", 4)).is(code(TenureException.Code.NOT_OWNER));
        assertThatThrownBy(() -> session.forceRelease("a", 4)).is(code(TenureException.Code.NOT_OWNER));
    }
}
