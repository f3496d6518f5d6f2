package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The client reads answers on its channel's event loop; an application's callback must still be
 * free to block, and to make a synchronous call whose answer that loop reads. Against a real node,
 * each callback here makes such a call: run on the loop, it would wait for itself until the
 * request timeout.
 */
class CallbacksOffLoopIT extends OnOneNode {

    private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(30);

    @Test
    void anAsyncAcquiresCallbackMayMakeASynchronousCall() throws Exception {
        try (TenureClient client = client();
                Session session = client.openSession()) {
            AtomicReference<String> thread = new AtomicReference<>();
            CompletableFuture<Long> nested = session.acquireAsync("offloop-a", Duration.ofSeconds(5))
                    .thenApply(outer -> {
                        thread.set(Thread.currentThread().getName());
                        try (Lease inner = session.acquire("offloop-b", Duration.ofSeconds(5))) {
                            return inner.token();
                        }
                    });
            assertThat(nested.get(ANSWERED_WITHIN.toSeconds(), TimeUnit.SECONDS))
                    .isPositive();
            assertThat(thread.get()).as("the callback's thread").doesNotContain("ELG");
        }
    }

    @Test
    void aLeasesLostCallbackMayMakeASynchronousCall() throws Exception {
        try (TenureClient client = client();
                Session session = client.openSession()) {
            Lease lease = session.acquire("offloop-c", Duration.ofSeconds(5));
            // Released synchronously: the answer marks the lease lost on the thread that reads it.
            CompletableFuture<Long> nested = lease.lost().thenApply(reason -> {
                assertThat(reason).isEqualTo(LossReason.RELEASED);
                try (Lease next = session.acquire("offloop-d", Duration.ofSeconds(5))) {
                    return next.token();
                }
            });
            lease.release();
            assertThat(nested.get(ANSWERED_WITHIN.toSeconds(), TimeUnit.SECONDS))
                    .isPositive();
        }
    }

    @Test
    void cancellingAnAsyncAcquireWithdrawsTheWait() throws Exception {
        try (TenureClient client = client();
                Session holder = client.openSession();
                Session waiter = client.openSession()) {
            Lease held = holder.acquire("offloop-e", Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = waiter.acquireAsync("offloop-e", (Duration) null);
            Await.atMost(ANSWERED_WITHIN)
                    .until(
                            "the waiter is queued",
                            () -> client.status("offloop-e").waiters().size() == 1);
            assertThat(waiting.cancel(false)).isTrue();
            Await.atMost(ANSWERED_WITHIN)
                    .until(
                            "the cancelled wait is withdrawn",
                            () -> client.status("offloop-e").waiters().isEmpty());
            held.release();
        }
    }

    private static TenureClient client() {
        return TenureClient.builder()
                .endpoints(server.endpoint())
                .sessionTtl(Duration.ofSeconds(20))
                .build();
    }
}
