package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Leadership;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * Leader hand-over: {@code --clients} candidates, each on its own connection, campaign in one
 * election; each round the leader resigns and the figure is the time from its resign call to the
 * next candidate's leadership, with the successor's token checked to be above the leader's. The
 * resigned candidate campaigns again at the back of the queue, so every round is a hand-over to a
 * waiting candidate. A crash hand-over is {@code takeover}'s figure: an election is a lock.
 */
final class ElectionWorkload {

    private static final Duration QUEUED_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration HANDOVER_TIMEOUT = Duration.ofMinutes(2);

    private ElectionWorkload() {}

    static Figures run(LoadConfig config) throws Exception {
        Histogram h = Figures.newHistogram();
        String election = "bench-election-" + Clients.runId();
        long began = System.nanoTime();
        try (Clients clients = new Clients()) {
            List<TenureClient> connections = new ArrayList<>();
            List<Session> candidates = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                TenureClient c = clients.open(config, "election-candidate-" + i);
                connections.add(c);
                candidates.add(c.openSession());
            }
            List<CompletableFuture<Leadership>> campaigns = new ArrayList<>();
            for (int i = 0; i < candidates.size(); i++) {
                campaigns.add(campaign(candidates.get(i), election, i));
            }
            int leaderIndex = firstElected(campaigns, -1);
            for (int round = 0; round < config.rounds(); round++) {
                Leadership leader = campaigns.get(leaderIndex).join();
                // Resign only once every other candidate is queued: a hand-over, not a race.
                awaitQueued(connections.get(0), election, candidates.size() - 1);
                long resignedAt = System.nanoTime();
                leader.resign();
                int nextIndex = firstElected(campaigns, leaderIndex);
                h.recordValue(System.nanoTime() - resignedAt);
                long next = campaigns.get(nextIndex).join().token();
                if (next <= leader.token()) {
                    throw new BenchFailedException("election: the successor's token " + next
                            + " is not above the resigned leader's " + leader.token());
                }
                campaigns.set(leaderIndex, campaign(candidates.get(leaderIndex), election, leaderIndex));
                leaderIndex = nextIndex;
                if ((round + 1) % 20 == 0 && round + 1 < config.rounds()) {
                    ClosedLoop.progress(config, "election", (round + 1) + " of " + config.rounds() + " rounds");
                }
            }
            Figures f = Figures.of(
                            "election", candidates.size(), h.getTotalCount(), (System.nanoTime() - began) / 1e9, h)
                    .with("latency", "the leader's resign call to the next candidate's leadership");
            return clients.withReplacements(f);
        }
    }

    private static CompletableFuture<Leadership> campaign(Session candidate, String election, int index) {
        return candidate.campaignAsync(election, ("candidate-" + index).getBytes(StandardCharsets.UTF_8));
    }

    /** The index of the one campaign, other than {@code resigned}'s, that won. */
    private static int firstElected(List<CompletableFuture<Leadership>> campaigns, int resigned)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<CompletableFuture<Leadership>> open = new ArrayList<>(campaigns);
        if (resigned >= 0) {
            open.set(resigned, new CompletableFuture<>()); // its leadership was done before the round began
        }
        CompletableFuture.anyOf(open.toArray(CompletableFuture[]::new))
                .get(HANDOVER_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        int elected = -1;
        for (int i = 0; i < open.size(); i++) {
            if (open.get(i).isDone()) {
                if (elected >= 0) {
                    throw new BenchFailedException("election: candidates " + elected + " and " + i + " both lead");
                }
                elected = i;
            }
        }
        return elected;
    }

    /** Waits until {@code waiters} candidates are queued on the server, not for a guessed sleep. */
    private static void awaitQueued(TenureClient tenure, String election, int waiters) throws InterruptedException {
        long deadline = System.nanoTime() + QUEUED_TIMEOUT.toNanos();
        while (tenure.status(election).waiters().size() < waiters) {
            if (System.nanoTime() > deadline) {
                throw new BenchFailedException("election: " + waiters + " candidates were not queued on " + election
                        + " within " + QUEUED_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(1);
        }
    }
}
