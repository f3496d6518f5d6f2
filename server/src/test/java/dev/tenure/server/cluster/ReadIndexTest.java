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
 * exercised by every status read of the server's and cli's tests, and by {@code ReadIndexIT}): a
 * read is answered only after an entry of this gateway's session with a correlation id taken after
 * the read arrived, and a read that waits asks for a barrier.
 */
class ReadIndexTest {

    private static final long SESSION = 7;

    /** Stands for the cluster channel: hands out correlation ids and records each barrier asked for. */
    private static final class RecordedGateway implements ReadIndex.Gateway {
        long next = 1;
        long session = SESSION;
        int barriersWanted;

        @Override
        public long sessionId() {
            return session;
        }

        @Override
        public long nextCorrelationId() {
            return next;
        }

        @Override
        public void wantBarrier() {
            barriersWanted++;
        }

        /** A command of the gateway's: a write, a renewal or a barrier. */
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
        assertThat(gateway.barriersWanted).isEqualTo(1);

        index.applied(SESSION, before, serve);
        assertThat(served).isEmpty();

        index.applied(SESSION, gateway.send(), serve);
        assertThat(served).containsExactly("a");
        assertThat(a.get(5, TimeUnit.SECONDS).getCorrelationId()).isEqualTo(1);
    }

    @Test
    void anotherSessionsEntryReleasesNothing() {
        var unusedA = read("a");
        long sent = gateway.send();
        index.applied(SESSION + 1, sent, serve);
        assertThat(served).isEmpty();
        // The gateway reconnected: its old session's entries are not its commands any more.
        gateway.session = SESSION + 2;
        index.applied(SESSION, sent, serve);
        assertThat(served).isEmpty();
        index.applied(SESSION + 2, gateway.send(), serve);
        assertThat(served).containsExactly("a");
    }

    /** Every read that arrived before a command was sent shares it; a later one waits for the next. */
    @Test
    void readsShareTheNextCommandSentAfterThemAndOnlyThose() throws Exception {
        CompletableFuture<Reply> a = read("a");
        CompletableFuture<Reply> b = read("b");
        long first = gateway.send();
        CompletableFuture<Reply> c = read("c");

        index.applied(SESSION, first, serve);
        assertThat(served).containsExactly("a", "b");
        // Answered on the read index's own thread, so waited for.
        assertThat(a).succeedsWithin(5, TimeUnit.SECONDS);
        assertThat(b).succeedsWithin(5, TimeUnit.SECONDS);
        assertThat(c).isNotDone();

        index.applied(SESSION, gateway.send(), serve);
        assertThat(served).containsExactly("a", "b", "c");
        assertThat(c.get(5, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aBarrierIsAskedForAgainWhileReadsWaitAndAReadNothingReleasesTimesOut() {
        ReadIndex shortLived = new ReadIndex(TimeUnit.SECONDS.toNanos(2));
        shortLived.gateway(gateway);
        try {
            CompletableFuture<Reply> a = shortLived.read(LogCommand.newBuilder()
                    .setLockStatus(LockStatusRequest.newBuilder().setLock("a")));
            assertThat(gateway.barriersWanted).isEqualTo(1);

            long now = System.nanoTime();
            assertThat(shortLived.expire(now)).as("before its deadline").isZero();
            assertThat(gateway.barriersWanted)
                    .as("the barrier may have been lost: asked again")
                    .isEqualTo(2);
            assertThat(shortLived.expire(now + TimeUnit.MILLISECONDS.toNanos(1)))
                    .isZero();
            assertThat(gateway.barriersWanted).as("at most once per 10 ms").isEqualTo(2);

            assertThat(shortLived.expire(now + TimeUnit.SECONDS.toNanos(3))).isEqualTo(1);
            assertThat(a)
                    .failsWithin(5, TimeUnit.SECONDS)
                    .withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("prove the read current");
            assertThat(shortLived.waitingCount()).isZero();
            assertThat(shortLived.expire(now + TimeUnit.SECONDS.toNanos(4))).isZero();
            assertThat(gateway.barriersWanted).as("no read waits: no barrier").isEqualTo(2);
        } finally {
            shortLived.close();
        }
    }

    /** Reads go through the index only while the node leads (a follower's go through the log). */
    @Test
    void servesOnlyWhileTheNodeLeads() {
        assertThat(index.serving()).isFalse();
        index.leading(true);
        assertThat(index.serving()).isTrue();
        index.leading(false);
        assertThat(index.serving()).isFalse();
    }

    @Test
    void aGatewayNotConnectedFailsTheReadAtOnce() {
        gateway.session = 0;
        assertThat(read("a")).isCompletedExceptionally();
        assertThat(gateway.barriersWanted).isZero();
    }
}
