package dev.tenure.cli.it;

import dev.tenure.testkit.Await;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What each node's gateway says about the cluster, from {@link PartitionWorker}'s {@code probe}:
 * every status answer, and the latest per node.
 */
final class ProbeViews {

    /** One answer of node {@code node} at {@code atNanos}: its leader and health. */
    record View(int node, long atNanos, int leader, String health) {
        boolean ok() {
            return "ok".equals(health);
        }
    }

    private final List<View> all = new CopyOnWriteArrayList<>();
    private final Map<Integer, View> latest = new ConcurrentHashMap<>();
    private final Supplier<String> diagnostics;

    ProbeViews(Supplier<String> diagnostics) {
        this.diagnostics = diagnostics;
    }

    /** The leader all three nodes report while healthy, or null. */
    static Integer agreedLeader(Map<Integer, View> v) {
        if (v.size() < 3 || !v.values().stream().allMatch(View::ok)) {
            return null;
        }
        int leader = v.values().iterator().next().leader;
        return leader >= 0 && v.values().stream().allMatch(x -> x.leader == leader) ? leader : null;
    }

    void follow(Processes.Running probe) {
        Thread t = new Thread(
                () -> {
                    try {
                        while (true) {
                            String[] f = probe.stdout.take().split(" ", 5);
                            View v = new View(
                                    Integer.parseInt(f[1]), Long.parseLong(f[2]), Integer.parseInt(f[3]), f[4]);
                            all.add(v);
                            latest.put(v.node, v);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "probe-reader");
        t.setDaemon(true);
        t.start();
    }

    /** Polls the views answered after {@code sinceNanos} until {@code condition} gives a value. */
    <T> T await(Duration timeout, long sinceNanos, String what, Function<Map<Integer, View>, T> condition)
            throws InterruptedException {
        return Await.atMost(timeout)
                .every(Duration.ofMillis(20))
                .failureDetails(() -> "latest views " + latest.values() + diagnostics.get())
                .until(what, () -> condition.apply(answeredAfter(sinceNanos)), Objects::nonNull);
    }

    private Map<Integer, View> answeredAfter(long sinceNanos) {
        Map<Integer, View> fresh = new ConcurrentHashMap<>();
        latest.forEach((node, v) -> {
            if (v.atNanos > sinceNanos) {
                fresh.put(node, v);
            }
        });
        return fresh;
    }

    /** Each node's answers after {@code sinceNanos}, one line wherever they changed. */
    String changes(long sinceNanos) {
        StringBuilder b = new StringBuilder();
        Map<Integer, String> last = new HashMap<>();
        for (View v : all) {
            String state = v.leader + " " + v.health;
            if (!state.equals(last.put(v.node, state))) {
                b.append(String.format(
                        "  %+7d ms  node %d  leader %2d  %s%n",
                        TimeUnit.NANOSECONDS.toMillis(v.atNanos - sinceNanos), v.node, v.leader, v.health));
            }
        }
        return b.toString().stripTrailing();
    }

    Optional<View> firstAfter(long sinceNanos, Predicate<View> p) {
        return all.stream().filter(v -> v.atNanos > sinceNanos).filter(p).findFirst();
    }
}
