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

        index.applied(SESSION, before, 0, serve);
        assertThat(served).isEmpty();

        index.applied(SESSION, gateway.send(), 0, serve);
        assertThat(served).containsExactly("a");
        assertThat(a.get(5, TimeUnit.SECONDS).getCorrelationId()).isEqualTo(1);
    }

    @Test
    void anotherSessionsEntryReleasesNothing() {
        var unusedA = read("a");
        long sent = gateway.send();
        index.applied(SESSION + 1, sent, 0, serve);
        assertThat(served).isEmpty();
        // The gateway reconnected: its old session's entries are not its commands any more.
        gateway.session = SESSION + 2;
        index.applied(SESSION, sent, 0, serve);
        assertThat(served).isEmpty();
        index.applied(SESSION + 2, gateway.send(), 0, serve);
        assertThat(served).containsExactly("a");
    }

    /** Every read that arrived before a command was sent shares it; a later one waits for the next. */
    @Test
    void readsShareTheNextCommandSentAfterThemAndOnlyThose() throws Exception {
        CompletableFuture<Reply> a = read("a");
        CompletableFuture<Reply> b = read("b");
        long first = gateway.send();
        CompletableFuture<Reply> c = read("c");

        index.applied(SESSION, first, 0, serve);
        assertThat(served).containsExactly("a", "b");
        // Answered on the read index's own thread, so waited for.
        assertThat(a).succeedsWithin(5, TimeUnit.SECONDS);
        assertThat(b).succeedsWithin(5, TimeUnit.SECONDS);
        assertThat(c).isNotDone();

        index.applied(SESSION, gateway.send(), 0, serve);
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
            assertThat(shortLived.expire(now, 0, serve))
                    .as("before its deadline")
                    .isZero();
            assertThat(gateway.barriersWanted)
                    .as("the barrier may have been lost: asked again")
                    .isEqualTo(2);
            assertThat(shortLived.expire(now + TimeUnit.MILLISECONDS.toNanos(1), 0, serve))
                    .isZero();
            assertThat(gateway.barriersWanted).as("at most once per 10 ms").isEqualTo(2);

            assertThat(shortLived.expire(now + TimeUnit.SECONDS.toNanos(3), 0, serve))
                    .isEqualTo(1);
            assertThat(a)
                    .failsWithin(5, TimeUnit.SECONDS)
                    .withThrowableOfType(ExecutionException.class)
                    .withMessageContaining("prove the read current");
            assertThat(shortLived.waitingCount()).isZero();
            assertThat(shortLived.expire(now + TimeUnit.SECONDS.toNanos(4), 0, serve))
                    .isZero();
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

    /** A read index on a clock the test moves, leading in its own term with a lease of 1 s, its quiet period over. */
    private final class Leased implements AutoCloseable {
        final long[] nowNanos = {0};
        final long[] commit = {0};
        int wakes;
        final ReadIndex index = new ReadIndex(TimeUnit.SECONDS.toNanos(5), () -> nowNanos[0]);

        Leased() {
            index.gateway(gateway);
            index.commitPosition(() -> commit[0]);
            index.wakeService(() -> wakes++);
            index.leading(true);
            index.lease().start(1_000, true, 0);
            index.lease().newTerm(true, 0);
            nowNanos[0] = TimeUnit.SECONDS.toNanos(2);
        }

        CompletableFuture<Reply> read(String lock) {
            return index.read(LogCommand.newBuilder()
                    .setLockStatus(LockStatusRequest.newBuilder().setLock(lock)));
        }

        void advanceMillis(long ms) {
            nowNanos[0] += TimeUnit.MILLISECONDS.toNanos(ms);
        }

        /** {@code ms} later, a read, and the service thread between two applies with its replica at 0. */
        CompletableFuture<Reply> readAfter(long ms, String lock) {
            advanceMillis(ms);
            CompletableFuture<Reply> answer = read(lock);
            idle(0);
            return answer;
        }

        /** The service thread between two applies, its replica at {@code appliedPosition}. */
        void idle(long appliedPosition) {
            index.expire(nowNanos[0], appliedPosition, serve);
        }

        /** The replica applies an entry of the gateway's, the next it sends, ending at {@code appliedPosition}. */
        void applyEntry(long appliedPosition) {
            index.applied(SESSION, gateway.send(), appliedPosition, serve);
        }

        @Override
        public void close() {
            index.close();
        }
    }

    @Test
    void withALeaseOnlyTheFirstReadWaitsForAnEntryAndTheNextAreAnsweredAtOnce() throws Exception {
        try (Leased leased = new Leased()) {
            CompletableFuture<Reply> first = leased.read("a");
            assertThat(gateway.barriersWanted)
                    .as("no proof yet: the read asks for an entry")
                    .isEqualTo(1);
            leased.idle(0);
            assertThat(first)
                    .as("not proven by the lease, and no entry applied")
                    .isNotDone();
            leased.advanceMillis(3);
            leased.applyEntry(100);
            first.get(5, TimeUnit.SECONDS);

            leased.commit[0] = 200;
            leased.advanceMillis(10);
            int barriers = gateway.barriersWanted;
            CompletableFuture<Reply> second = leased.read("b");
            assertThat(gateway.barriersWanted)
                    .as("the lease is proven: no barrier")
                    .isEqualTo(barriers);
            assertThat(leased.wakes)
                    .as("the service thread is woken to answer it")
                    .isEqualTo(1);
            leased.idle(150);
            assertThat(second)
                    .as("committed 200 when it arrived, the replica applied only 150")
                    .isNotDone();
            leased.idle(200);
            second.get(5, TimeUnit.SECONDS);
            assertThat(served).containsExactly("a", "b");
            assertThat(leased.index.leased()).isEqualTo(1);
            assertThat(leased.index.answered()).isEqualTo(2);
        }
    }

    @Test
    void aLeaseRunsOutUnlessAProbeProvesItAgain() throws Exception {
        try (Leased leased = new Leased()) {
            CompletableFuture<Reply> first = leased.read("a");
            leased.applyEntry(0);
            first.get(5, TimeUnit.SECONDS);

            CompletableFuture<Reply> second = leased.readAfter(600, "b");
            second.get(5, TimeUnit.SECONDS);
            assertThat(gateway.barriersWanted)
                    .as("served with more than half the lease gone: a probe asks for an entry")
                    .isEqualTo(2);

            CompletableFuture<Reply> third = leased.readAfter(400, "c");
            assertThat(third).as("1,000 ms after the only proof: not current").isNotDone();
            leased.applyEntry(0);
            third.get(5, TimeUnit.SECONDS);

            CompletableFuture<Reply> fourth = leased.readAfter(900, "d");
            fourth.get(5, TimeUnit.SECONDS);
            assertThat(leased.index.leased())
                    .as("the third read, released by an entry, proved the lease from its arrival until 1,950 ms")
                    .isEqualTo(2);
        }
    }

    @Test
    void aMemberInItsQuietPeriodAnswersNoReadEvenOneAnEntryReleased() throws Exception {
        try (Leased leased = new Leased()) {
            leased.index.lease().newTerm(true, leased.nowNanos[0]);
            CompletableFuture<Reply> read = leased.read("a");
            leased.applyEntry(0);
            leased.advanceMillis(1_049);
            leased.idle(0);
            assertThat(read).as("within Δ(1 + ρ) of the new term").isNotDone();
            leased.advanceMillis(1);
            leased.idle(0);
            read.get(5, TimeUnit.SECONDS);
            assertThat(leased.index.leased())
                    .as("released by the entry, answered when the quiet period ended")
                    .isZero();
        }
    }
}
