package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.ServerStatusRequest;
import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.internal.Endpoints;
import dev.tenure.client.internal.Retrier;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A leader failover seen by many clients at once: every client's call fails at the same instant,
 * every node answers UNAVAILABLE until a new leader is elected, then all answer. Each client is the
 * client's own {@link Retrier} with endpoints of its own, on one manual clock, so the run is
 * deterministic and counts exactly when each retry reaches a node.
 */
class RetryHerdTest {
    private static final int CLIENTS = 2_000;
    private static final Duration ELECTION = Duration.ofSeconds(2);

    private final Harness h = new Harness(3);
    private final List<Endpoints> endpoints = new ArrayList<>();

    @AfterEach
    void tearDown() throws InterruptedException {
        endpoints.forEach(Endpoints::close);
        h.close();
    }

    /**
     * With jitter no millisecond holds more than a tenth of the clients' retries (the densest is
     * the first round's, two tries per client within 50 ms); without it (every client drawing the
     * same delay, as a fixed backoff does) all of them land together.
     */
    @Test
    void clientsThatFailTogetherDoNotRetryInTheSameMillisecond() {
        int jittered = largestRetriesInOneMillisecond(new SplittableRandom(42));
        System.out.printf(
                "RetryHerdTest: %d clients, a %d ms election: at most %d retries in one millisecond%n",
                CLIENTS, ELECTION.toMillis(), jittered);
        assertThat(jittered).isLessThanOrEqualTo(CLIENTS / 10);
    }

    /** The same failover without jitter: the herd the test above rules out, so it is one. */
    @Test
    void aBackoffWithoutJitterRetriesAllClientsInTheSameMillisecond() {
        int lockstep = largestRetriesInOneMillisecond(new Constant());
        System.out.printf("RetryHerdTest: the same without jitter: %d retries in one millisecond%n", lockstep);
        assertThat(lockstep).isGreaterThanOrEqualTo(CLIENTS);
    }

    /** Runs the failover; the largest number of retries that reached the nodes in one millisecond. */
    private int largestRetriesInOneMillisecond(RandomGenerator random) {
        h.time.random(random);
        long start = h.time.nanoTime();
        long elected = start + ELECTION.toNanos();
        TreeMap<Long, Integer> retriesPerMs = new TreeMap<>();
        boolean[] firstTry = {false};
        h.fake.onServerStatus = r -> {
            long now = h.time.nanoTime();
            if (firstTry[0]) {
                firstTry[0] = false; // the call that the failover failed, not a retry
            } else {
                retriesPerMs.merge(TimeUnit.NANOSECONDS.toMillis(now - start), 1, Integer::sum);
            }
            if (now - elected < 0) {
                throw Status.UNAVAILABLE.withDescription("no leader").asRuntimeException();
            }
            return ServerStatusResponse.newBuilder().setHealth("ok").build();
        };
        List<CompletableFuture<ServerStatusResponse>> calls = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            Retrier retrier = new Retrier(endpointsOf(i), h.time);
            firstTry[0] = true;
            calls.add(retrier.call(
                    TenureGrpc.getServerStatusMethod(),
                    ServerStatusRequest.getDefaultInstance(),
                    Duration.ofSeconds(30).toNanos()));
        }
        // Until every call ended: each client's endpoints also keep a leader question due every
        // 30 s (Endpoints.LEADER_RECHECK_NANOS), so the clock never runs out of tasks.
        long giveUp = start + Duration.ofMinutes(1).toNanos();
        while (calls.stream().anyMatch(c -> !c.isDone()) && h.time.nanoTime() - giveUp < 0 && h.time.pending() > 0) {
            h.time.advanceToNext();
        }
        assertThat(calls)
                .allSatisfy(c -> assertThat(c)
                        .isCompletedWithValueMatching(s -> s.getHealth().equals("ok")));
        return retriesPerMs.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** Client {@code i}'s endpoints, from a different first node, as clients of a real cluster list them. */
    private Endpoints endpointsOf(int i) {
        List<String> targets = new ArrayList<>();
        for (int k = 0; k < h.endpoints.size(); k++) {
            targets.add(h.endpoints.get((i + k) % h.endpoints.size()));
        }
        Endpoints e = new Endpoints(
                targets,
                t -> InProcessChannelBuilder.forName(t.substring(0, t.lastIndexOf(':')))
                        .directExecutor()
                        .build(),
                false,
                h.time);
        endpoints.add(e);
        return e;
    }

    /** Every client draws the same delay: a fixed backoff. */
    private static final class Constant implements RandomGenerator {
        @Override
        public long nextLong() {
            return 0;
        }

        @Override
        public long nextLong(long bound) {
            return bound - 1;
        }
    }
}
