package dev.tenure.client;

import static dev.tenure.client.TenureCodes.code;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.api.v1.ServerStatusRequest;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Retries across endpoints with backoff, bounded by the request timeout on the TimeSource. */
class RetrierTest {
    private final Harness h = new Harness(1);
    private final ExecutorService caller = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() throws InterruptedException {
        caller.shutdownNow();
        h.close();
    }

    /** Runs each backoff timer as the caller's thread schedules it, until the call ends. */
    private <T> void driveUntilDone(CompletableFuture<T> call) throws InterruptedException {
        while (!call.isDone()) {
            if (h.time.awaitPending(1, Duration.ofMillis(20))) {
                h.time.advanceToNext();
            }
        }
    }

    @Test
    void unavailableEverywhereFailsAfterTheRequestTimeout() throws Exception {
        TenureClient client = h.builder().requestTimeout(Duration.ofSeconds(1)).build();
        h.fake.unavailableNext.set(1_000);
        long start = h.time.nanoTime();
        CompletableFuture<ServerStatus> call = CompletableFuture.supplyAsync(client::serverStatus, caller);
        driveUntilDone(call);

        assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(UnavailableException.class);
        // Each delay the mean of its jitter (ManualTimeSource): 25 ms for the one endpoint's
        // first-round retry, then 50, 100, 200, 400 ms; the next (500 ms) would end past the 1 s
        // budget, so the call gives up at 775 ms instead of trying with no time left.
        assertThat(h.fake.requests(ServerStatusRequest.class)).hasSize(6);
        assertThat(h.time.nanoTime() - start).isEqualTo(Duration.ofMillis(775).toNanos());
        client.close();
    }

    @Test
    void succeedsOnceAnEndpointAnswers() throws Exception {
        TenureClient client = h.builder().build();
        h.fake.unavailableNext.set(3);
        CompletableFuture<ServerStatus> call = CompletableFuture.supplyAsync(client::serverStatus, caller);
        driveUntilDone(call);
        assertThat(call.get(5, TimeUnit.SECONDS).health()).isEqualTo("ok");
        assertThat(h.fake.requests(ServerStatusRequest.class)).hasSize(4);
        client.close();
    }

    @Test
    void unauthenticatedAndPermissionDeniedAreDeniedAtOnceNotRetried() throws Exception {
        TenureClient client = h.builder().build();
        for (Status refusal : List.of(
                Status.UNAUTHENTICATED.withDescription("no principal"),
                Status.PERMISSION_DENIED.withDescription("alice may not read"))) {
            h.fake.onServerStatus = r -> {
                throw refusal.asRuntimeException();
            };
            int before = h.fake.requests(ServerStatusRequest.class).size();
            assertThatThrownBy(client::serverStatus)
                    .is(code(TenureException.Code.DENIED))
                    .hasMessage(refusal.getDescription());
            assertThat(h.fake.requests(ServerStatusRequest.class)).hasSize(before + 1);
        }
        client.close();
    }

    @Test
    void openingFailsWithUnavailableWhenNoEndpointAnswers() throws Exception {
        TenureClient client = h.builder().requestTimeout(Duration.ofSeconds(1)).build();
        h.stop(0);
        CompletableFuture<Session> opening = client.openSessionAsync();
        while (!opening.isDone()) {
            h.time.advanceToNext();
        }
        assertThatThrownBy(() -> opening.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(UnavailableException.class);
        client.close();
    }
}
