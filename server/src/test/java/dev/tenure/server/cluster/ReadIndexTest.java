package dev.tenure.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.LockStatusRequest;
import dev.tenure.log.v1.LogCommand;
import dev.tenure.log.v1.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read index's rule, with a recorded gateway in place of the cluster channel (the real one is
 * exercised by every status read of the server's and cli's tests): a read is answered only after
 * an entry of this gateway's session with a correlation id taken after the read arrived, and one
 * barrier at a time goes into the log for reads that wait.
 */
class ReadIndexTest {

    private static final long SESSION = 7;

    /** Stands for the cluster channel: hands out correlation ids and records the barriers sent. */
    private static final class RecordedGateway implements ReadIndex.Gateway {
        long next = 1;
        long session = SESSION;
        final List<CompletableFuture<Reply>> barriers = new ArrayList<>();
        final List<Long> barrierIds = new ArrayList<>();

        @Override
        public long sessionId() {
            return session;
        }

        @Override
        public long nextCorrelationId() {
            return next;
        }

        @Override
        public CompletableFuture<Reply> submit(LogCommand.Builder command) {
            assertThat(command.hasKeepAlive()).isTrue();
            assertThat(command.getKeepAlive().getSessionIdsCount()).isZero();
            barrierIds.add(next++);
            CompletableFuture<Reply> f = new CompletableFuture<>();
            barriers.add(f);
            return f;
        }

        /** A command of the gateway's own, not a barrier: a write or a renewal. */
        long send() {
            return next++;
        }
    }

    private final RecordedGateway gateway = new RecordedGateway();
    private final ReadIndex index = new ReadIndex(TimeUnit.SECONDS.toNanos(5));
    private final List<String> served = new ArrayList<>();
    private final Function<LogCommand, Reply> serve = this::serve;

    private Reply serve(LogCommand read) {
        served.add(read.getLockStatus().getLock());
        return Reply.newBuilder().setCorrelationId(served.size()).build();
    }

    ReadIndexTest() {
        index.gateway(gateway);
    }

    @AfterEach
    void close() {
        index.close();
    }

    private CompletableFuture<Reply> read(String lock) {
        return index.read(LogCommand.newBuilder()
                .setLockStatus(LockStatusRequest.newBuilder().setLock(lock)));
    }

    @Test
    void aReadWaitsForAnEntrySentAfterItArrived() throws Exception {
        long before = gateway.send();
        CompletableFuture<Reply> a = read("a");

        index.applied(SESSION, before, serve);
        assertThat(served).isEmpty();

        index.applied(SESSION, gateway.barrierIds.get(0), serve);
        assertThat(served).containsExactly("a");
        assertThat(a.get(5, TimeUnit.SECONDS).getCorrelationId()).isEqualTo(1);
    }

    @Test
    void anotherSessionsEntryReleasesNothing() {
        var unusedA = read("a");
        index.applied(SESSION + 1, 1_000, serve);
        assertThat(served).isEmpty();
        // The gateway reconnected: its old session's entries are not its commands any more.
        gateway.session = SESSION + 2;
        index.applied(SESSION, 1_000, serve);
        assertThat(served).isEmpty();
        index.applied(SESSION + 2, 1_000, serve);
        assertThat(served).containsExactly("a");
    }

    /** Any later command of the gateway's releases a read, not only its barrier. */
    @Test
    void aWriteSentAfterTheReadReleasesItBeforeTheBarrier() {
        var unusedA = read("a");
        long write = gateway.send();
        index.applied(SESSION, write, serve);
        assertThat(served).containsExactly("a");
    }

    @Test
    void readsArrivingWhileABarrierIsInFlightShareTheNextOne() throws Exception {
        CompletableFuture<Reply> a = read("a");
        CompletableFuture<Reply> b = read("b");
        CompletableFuture<Reply> c = read("c");
        assertThat(gateway.barriers).as("one barrier in flight at a time").hasSize(1);

        gateway.barriers.get(0).complete(Reply.getDefaultInstance());
        assertThat(gateway.barriers)
                .as("b and c arrived after the first barrier was sent: one more goes for both")
                .hasSize(2);
        index.applied(SESSION, gateway.barrierIds.get(0), serve);
        assertThat(served).containsExactly("a");
        assertThat(a).isDone();

        gateway.barriers.get(1).complete(Reply.getDefaultInstance());
        assertThat(gateway.barriers)
                .as("no read arrived after the second: none more")
                .hasSize(2);
        index.applied(SESSION, gateway.barrierIds.get(1), serve);
        assertThat(served).containsExactly("a", "b", "c");
        assertThat(b.get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(c.get(5, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aFailedBarrierIsSentAgainWhileReadsWaitAndAReadNothingReleasesTimesOut() {
        ReadIndex shortLived = new ReadIndex(TimeUnit.SECONDS.toNanos(2));
        shortLived.gateway(gateway);
        try {
            CompletableFuture<Reply> a = shortLived.read(LogCommand.newBuilder()
                    .setLockStatus(LockStatusRequest.newBuilder().setLock("a")));
            gateway.barriers.get(0).completeExceptionally(new IllegalStateException("leader changed"));
            assertThat(gateway.barriers)
                    .as("not at once: the service thread retries")
                    .hasSize(1);

            long now = System.nanoTime();
            assertThat(shortLived.expire(now)).as("before its deadline").isZero();
            assertThat(gateway.barriers).hasSize(2);
            assertThat(shortLived.expire(now + TimeUnit.MILLISECONDS.toNanos(1)))
                    .isZero();
            assertThat(gateway.barriers).as("at most one retry per 10 ms").hasSize(2);

            assertThat(shortLived.expire(now + TimeUnit.SECONDS.toNanos(3))).isEqualTo(1);
            assertThat(a)
                    .failsWithin(5, TimeUnit.SECONDS)
                    .withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("prove the read current");
            assertThat(shortLived.waitingCount()).isZero();
        } finally {
            shortLived.close();
        }
    }

    @Test
    void aGatewayNotConnectedFailsTheReadAtOnce() {
        gateway.session = 0;
        assertThat(read("a")).isCompletedExceptionally();
        assertThat(gateway.barriers).isEmpty();
    }
}
