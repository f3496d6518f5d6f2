package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.Code;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.ReleaseResponse;
import dev.tenure.api.v1.TenureEnd;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Lease#releaseAsync()} and {@link Session#closeAsync()}: they return at once, and
 * complete where their blocking pairs would return.
 */
class AsyncReleaseAndCloseTest {
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

    @Test
    void releaseAsyncReturnsBeforeTheServerAnswersAndCompletesWithTheRelease() {
        Lease lease = session.acquire("a");
        // Both nodes fail once: the retries wait out 25 and 50 ms (each delay the mean of its
        // jitter, in the harness).
        h.fake.unavailableNext.set(2);

        CompletableFuture<Void> released = lease.releaseAsync();
        assertThat(released).isNotDone();
        assertThat(lease.lost()).isNotDone();

        h.time.advance(Duration.ofMillis(75));
        assertThat(released).isCompleted();
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
        assertThat(h.fake.requests(ReleaseRequest.class)).hasSize(3).allSatisfy(r -> {
            assertThat(r.getToken()).isEqualTo(lease.token());
            assertThat(r.getRequestId()).as("one request, retried").isEqualTo(2);
            assertThat(r.getForce()).isFalse();
        });
    }

    @Test
    void releaseAsyncFailsWithNotOwnerWhenTheServerNoLongerCountsTheLease() {
        Lease lease = session.acquire("a");
        h.fake.onRelease = r -> ReleaseResponse.newBuilder()
                .setCode(Code.CODE_NOT_OWNER)
                .setCurrentToken(99)
                .build();

        CompletableFuture<Void> released = lease.releaseAsync();
        assertThatThrownBy(released::join).cause().isInstanceOfSatisfying(StaleTokenException.class, e -> {
            assertThat(e.code()).isEqualTo(TenureException.Code.NOT_OWNER);
            assertThat(e.currentToken()).isEqualTo(99);
        });
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.REVOKED);
    }

    @Test
    void releaseAsyncOfALeaseAlreadyLostSendsNothing() {
        Lease lease = session.acquire("a");
        lease.release();

        assertThat(lease.releaseAsync()).isCompleted();
        assertThat(h.fake.requests(ReleaseRequest.class)).hasSize(1);
    }

    @Test
    void closeAsyncReturnsAtOnceAndCompletesWhenTheServerConfirms() {
        Lease lease = session.acquire("a");
        h.fake.answerClose = false;

        CompletableFuture<Void> closed = session.closeAsync();
        assertThat(h.fake.attachCount(AttachRequest.KindCase.CLOSE)).isEqualTo(1);
        assertThat(closed).isNotDone();
        assertThat(session.state()).isEqualTo(Session.State.CONNECTED);

        h.fake.latest().end(TenureEnd.TENURE_END_RELEASED, "closed by client");
        assertThat(closed).isCompleted();
        assertThat(session.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
        assertThat(lease.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
    }

    @Test
    void closeAsyncWithoutAnAnswerCompletesAfterTheShortWait() {
        h.fake.answerClose = false;

        CompletableFuture<Void> closed = session.closeAsync();
        h.time.advance(Duration.ofSeconds(1).minusNanos(1));
        assertThat(closed).isNotDone();
        h.time.advance(Duration.ofNanos(1));
        assertThat(closed).isCompleted();
        assertThat(session.lost().getNow(null)).isEqualTo(LossReason.RELEASED);
    }

    @Test
    void closeAsyncIsIdempotent() {
        CompletableFuture<Void> first = session.closeAsync();
        CompletableFuture<Void> second = session.closeAsync();

        assertThat(first).isCompleted();
        assertThat(second).isCompleted();
        assertThat(h.fake.attachCount(AttachRequest.KindCase.CLOSE)).isEqualTo(1);
    }

    @Test
    void closeAsyncOfASessionAlreadyLostIsCompleteAndSendsNothing() {
        h.fake.latest().end(TenureEnd.TENURE_END_EXPIRED, "session expired");

        assertThat(session.closeAsync()).isCompleted();
        assertThat(session.lost().getNow(null)).isEqualTo(LossReason.EXPIRED);
        assertThat(h.fake.attachCount(AttachRequest.KindCase.CLOSE)).isZero();
    }

    @Test
    void closeAsyncMayBeCalledFromALeasesLostCallback() {
        Lease lease = session.acquire("a");
        h.fake.answerClose = false;
        AtomicReference<CompletableFuture<Void>> closed = new AtomicReference<>();
        CompletableFuture<?> unused = lease.lost().thenRun(() -> closed.set(session.closeAsync()));

        lease.release();
        assertThat(closed.get()).isNotNull().isNotDone();
        h.time.advance(Duration.ofSeconds(1));
        assertThat(closed.get()).isCompleted();
    }
}
