package dev.tenure.lab.scenario;

import dev.tenure.client.ServerStatus;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.lab.history.Violation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Checks of the service itself after a run, beyond the workers' history: no node's state machine
 * reported an invariant violation (the core checks its invariants after every apply, so this is
 * "at most one holder per lock, grants only to live sessions" at every point of every replica's
 * log); the replicas agree (at every log position two nodes both reported, their token counters
 * are equal, and so are the digests of their whole state where both took one) and all catch up; and no replica's token counter is below a token a worker was
 * granted, so no restart lost a grant.
 */
final class ReplicaCheck {
    static final String INVARIANTS = "node-invariants";
    static final String AGREEMENT = "replicas-agree";
    static final String DURABLE = "tokens-durable";

    private static final Duration CONVERGE = Duration.ofSeconds(60);
    private static final Duration SAMPLE = Duration.ofSeconds(5);

    private ReplicaCheck() {}

    /** {@code logs} and {@code endpoints} per node, in node order. */
    static List<Violation> check(List<Path> logs, List<String> endpoints, long maxGrantedToken, LabEnv env)
            throws IOException, InterruptedException {
        List<Violation> out = new ArrayList<>(invariantViolations(logs));
        List<TreeMap<Long, Long>> seen = new ArrayList<>();
        List<TreeMap<Long, Long>> digests = new ArrayList<>();
        long[] last = new long[endpoints.size()];
        List<TenureClient> clients = new ArrayList<>();
        try {
            for (String e : endpoints) {
                clients.add(TenureClient.builder()
                        .endpoints(e)
                        .requestTimeout(Duration.ofSeconds(5))
                        .build());
                seen.add(new TreeMap<>());
                digests.add(new TreeMap<>());
            }
            long target = -1;
            long deadline = System.nanoTime() + CONVERGE.toNanos();
            // Sample for a while even when all agree at once: more positions, more comparisons.
            long sampleUntil = System.nanoTime() + SAMPLE.toNanos();
            boolean done = false;
            while (!done && System.nanoTime() < deadline) {
                for (int i = 0; i < clients.size(); i++) {
                    try {
                        ServerStatus s = clients.get(i).serverStatus();
                        seen.get(i).put(s.replicaLogPosition(), s.replicaLastToken());
                        if (s.replicaDigestPosition() > 0) {
                            digests.get(i).put(s.replicaDigestPosition(), s.replicaStateDigest());
                        }
                        last[i] = s.replicaLastToken();
                    } catch (TenureException e) {
                        // a node still starting: asked again next round
                    }
                }
                if (target < 0 && seen.stream().noneMatch(TreeMap::isEmpty)) {
                    // Every node must get at least as far as the furthest was when first asked.
                    target = seen.stream().mapToLong(TreeMap::lastKey).max().orElseThrow();
                }
                done = System.nanoTime() > sampleUntil
                        && target >= 0
                        && allReached(seen, target)
                        && compare(seen, new ArrayList<>()) > 0
                        && compare(digests, "state digest", new ArrayList<>()) > 0;
                if (!done) {
                    TimeUnit.MILLISECONDS.sleep(100);
                }
            }
            for (int i = 0; i < seen.size(); i++) {
                long reached = seen.get(i).isEmpty() ? -1 : seen.get(i).lastKey();
                if (reached < target) {
                    out.add(new Violation(
                            AGREEMENT,
                            "node " + i + " stayed at log position " + reached + " < " + target + " for "
                                    + CONVERGE.toSeconds() + " s"));
                }
                if (last[i] < maxGrantedToken) {
                    out.add(new Violation(
                            DURABLE,
                            "node " + i + "'s token counter is " + last[i] + " but token " + maxGrantedToken
                                    + " was granted"));
                }
            }
            int compared = compare(seen, out);
            int digested = compare(digests, "state digest", out);
            env.progress("replicas: " + compared + " (position, token) and " + digested
                    + " (position, state digest) pairs compared, every node reached position " + target + ": "
                    + out.size() + " violation(s)");
            if (compared == 0 || digested == 0) {
                out.add(new Violation(
                        AGREEMENT,
                        "no log position was reported by two nodes within " + CONVERGE.toSeconds() + " s (tokens "
                                + compared + ", digests " + digested + "): nothing to compare"));
            }
        } finally {
            clients.forEach(TenureClient::close);
        }
        return out;
    }

    /** Lines of the nodes' logs that report an invariant the state machine found broken. */
    static List<Violation> invariantViolations(List<Path> logs) throws IOException {
        List<Violation> out = new ArrayList<>();
        for (int i = 0; i < logs.size(); i++) {
            if (!Files.exists(logs.get(i))) {
                continue;
            }
            for (String line : Files.readAllLines(logs.get(i), StandardCharsets.UTF_8)) {
                if (line.contains("InvariantViolation")) {
                    out.add(new Violation(INVARIANTS, "node " + i + ": " + line));
                }
            }
        }
        return out;
    }

    /** As {@link #compare(List, String, List)} for token counters. */
    static int compare(List<? extends NavigableMap<Long, Long>> seen, List<Violation> out) {
        return compare(seen, "token", out);
    }

    /**
     * Compares every two nodes' (position, value) reports at the positions both reported; adds a
     * violation per disagreement and returns how many pairs were compared.
     */
    static int compare(List<? extends NavigableMap<Long, Long>> seen, String what, List<Violation> out) {
        int compared = 0;
        for (int i = 0; i < seen.size(); i++) {
            for (int j = i + 1; j < seen.size(); j++) {
                for (Map.Entry<Long, Long> e : seen.get(i).entrySet()) {
                    Long other = seen.get(j).get(e.getKey());
                    if (other == null) {
                        continue;
                    }
                    compared++;
                    if (!other.equals(e.getValue())) {
                        out.add(new Violation(
                                AGREEMENT,
                                "at log position " + e.getKey() + " node " + i + " has " + what + " " + e.getValue()
                                        + ", node " + j + " " + other));
                    }
                }
            }
        }
        return compared;
    }

    private static boolean allReached(List<? extends NavigableMap<Long, Long>> seen, long target) {
        return seen.stream().allMatch(m -> !m.isEmpty() && m.lastKey() >= target);
    }
}
