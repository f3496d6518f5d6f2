package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.client.Watch;
import dev.tenure.client.WatchEvent;
import dev.tenure.client.WatchListener;
import dev.tenure.client.WatchRequest;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.Pause;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Java watches on a real 3-node cluster, one connected to each node, while a writer grants,
 * writes and releases under the watched prefix and the leader is killed with SIGKILL. Every
 * change in the cluster is under the prefix, so each watch must see revisions that follow one
 * another with no gap and no repeat, across its own resume on another node; and what each saw
 * must equal what a watch started afterwards from the same revision reads, which holds every
 * change the writer had acknowledged, in order.
 */
class WatchFailoverIT {
    private static final String PREFIX = "wf/";

    @TempDir
    Path data;

    /** One change as a watch saw it, and when it arrived (this JVM's clock). */
    record Seen(long revision, WatchEvent.Kind kind, String name, long token, long atNanos) {
        String what() {
            return revision + " " + kind + " " + name + " " + token;
        }
    }

    /** Records a watch's changes; fails the test on anything but a change after its start. */
    static final class Recorder implements WatchListener {
        final List<Seen> seen = new CopyOnWriteArrayList<>();
        final AtomicLong synced = new AtomicLong(-1);
        final List<String> unexpected = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(WatchEvent e) {
            if (e.current()) {
                unexpected.add("current state under a prefix nothing was written to: " + e);
                return;
            }
            seen.add(new Seen(e.revision(), e.kind(), e.name(), e.token(), System.nanoTime()));
        }

        @Override
        public void onSynced(long revision) {
            synced.set(revision);
        }

        @Override
        public void onEnded(TenureException cause) {
            unexpected.add("ended: " + cause);
        }

        long last() {
            return seen.isEmpty() ? synced.get() : seen.get(seen.size() - 1).revision();
        }

        List<String> whats() {
            return seen.stream().map(Seen::what).toList();
        }
    }

    /** An operation the writer saw acknowledged: what the watches must show for it. */
    record Acked(WatchEvent.Kind kind, String name, long token) {}

    @Test
    void everyWatchSeesEveryChangeOnceInOrderAcrossALeaderKill() throws Exception {
        try (ClusterProcess cluster = new ClusterProcess(data).start()) {
            // A loaded machine may answer the first status late, or before a leader is known.
            int leader = Await.atMost(Duration.ofSeconds(60))
                    .until("a leader is known", () -> cluster.leaderSeenBy(0), id -> id >= 0 && id <= 2);
            List<TenureClient> clients = new ArrayList<>();
            List<Recorder> recorders = new ArrayList<>();
            List<Watch> watches = new ArrayList<>();
            try {
                for (int node = 0; node < 3; node++) {
                    // The node first: its watch starts there, and moves on only when that node fails.
                    TenureClient c = TenureClient.builder()
                            .endpoints(rotated(cluster.nodeEndpoints, node))
                            .build();
                    clients.add(c);
                    Recorder r = new Recorder();
                    recorders.add(r);
                    watches.add(c.watch(WatchRequest.prefix(PREFIX), r));
                }
                Await.atMost(Duration.ofSeconds(30))
                        .until("every watch synced", () -> recorders.stream().allMatch(r -> r.synced.get() >= 0));
                long start = recorders.get(0).synced.get();
                for (Recorder r : recorders) {
                    assertThat(r.synced.get())
                            .as("nothing was written: one revision")
                            .isEqualTo(start);
                }

                TenureClient writerClient = TenureClient.builder()
                        .endpoints(cluster.endpoints)
                        .sessionTtl(Duration.ofSeconds(6))
                        .build();
                clients.add(writerClient);
                List<Acked> acked = new CopyOnWriteArrayList<>();
                List<Long> grantTimes = new CopyOnWriteArrayList<>();
                AtomicBoolean stop = new AtomicBoolean();
                Thread writer = new Thread(() -> write(writerClient, acked, grantTimes, stop), "writer");
                writer.start();
                Pause.forMillis(1_500); // changes before the kill
                long killedAt = System.nanoTime();
                cluster.kill9(leader);
                // Through the election, however long a loaded machine makes it, and after it.
                Await.atMost(Duration.ofSeconds(60))
                        .until(
                                "a grant acknowledged after the kill",
                                () -> grantTimes.stream().anyMatch(t -> t > killedAt));
                Pause.forMillis(1_500);
                stop.set(true);
                writer.join(60_000);
                assertThat(writer.isAlive()).as("the writer stopped").isFalse();

                // The last change: each watch has everything once it has this.
                writerClient.kv().put(PREFIX + "end", "end".getBytes(UTF_8));
                Recorder reference = new Recorder();
                watches.add(writerClient.watch(WatchRequest.prefix(PREFIX).fromRevision(start), reference));
                recorders.add(reference);
                for (int i = 0; i < recorders.size(); i++) {
                    Recorder r = recorders.get(i);
                    Await.atMost(Duration.ofSeconds(60))
                            .failureDetails(() -> "last revisions: "
                                    + recorders.stream().map(Recorder::last).toList())
                            .until(
                                    "watch " + i + " has the last change",
                                    () -> r.seen.stream().anyMatch(e -> e.name().equals(PREFIX + "end")));
                }
                long end = reference.last();
                Await.atMost(Duration.ofSeconds(30))
                        .until(
                                "the node's status shows the last revision",
                                () -> writerClient.serverStatus().revision(),
                                r -> r == end);

                for (int i = 0; i < recorders.size(); i++) {
                    Recorder r = recorders.get(i);
                    assertThat(r.unexpected).as("watch %d", i).isEmpty();
                    for (int k = 0; k < r.seen.size(); k++) {
                        assertThat(r.seen.get(k).revision())
                                .as("watch %d: change %d follows the one before, no gap, no repeat", i, k)
                                .isEqualTo(start + 1 + k);
                    }
                    assertThat(r.whats())
                            .as("watch %d equals the later watch", i)
                            .isEqualTo(reference.whats());
                }
                List<Acked> shown = reference.seen.stream()
                        .map(s -> new Acked(s.kind(), s.name(), s.token()))
                        .toList();
                assertThat(inOrder(acked, shown))
                        .as("every acknowledged grant and put is shown, in order")
                        .isTrue();
                assertThat(grantTimes.stream().filter(t -> t > killedAt))
                        .as("grants acknowledged after the kill")
                        .hasSizeGreaterThan(2);

                for (int i = 0; i < 3; i++) {
                    System.out.printf(
                            "watch on node %d%s: longest wait for a change across the kill %d ms, %d changes%n",
                            i,
                            i == leader ? " (the killed leader)" : "",
                            TimeUnit.NANOSECONDS.toMillis(gapAcross(recorders.get(i).seen, killedAt)),
                            recorders.get(i).seen.size());
                }
                System.out.printf(
                        "leader %d killed: %d changes from revision %d to %d, %d acknowledged operations%n",
                        leader, reference.seen.size(), start + 1, end, acked.size());
            } finally {
                for (Watch w : watches) {
                    w.close();
                }
                for (TenureClient c : clients) {
                    c.close();
                }
            }
        }
    }

    /** Grants, fenced puts and releases under the prefix until stopped, through the failover. */
    private static void write(TenureClient tenure, List<Acked> acked, List<Long> grantTimes, AtomicBoolean stop) {
        byte[] value = "v".getBytes(UTF_8);
        try (Session session = tenure.openSession()) {
            for (int i = 0; !stop.get(); i++) {
                String lock = PREFIX + "lock-" + (i % 4);
                try (Lease lease = session.acquire(lock, Duration.ofSeconds(5))) {
                    acked.add(new Acked(WatchEvent.Kind.GRANTED, lock, lease.token()));
                    grantTimes.add(System.nanoTime());
                    String key = PREFIX + "key-" + (i % 3);
                    tenure.kv().put(key, value, lock, lease.token());
                    acked.add(new Acked(WatchEvent.Kind.KV_PUT, key, lease.token()));
                } catch (TenureException e) {
                    // UNAVAILABLE while the cluster elects a new leader: the next loop tries again.
                }
            }
        }
    }

    /** Whether {@code sub} appears in {@code all} in the same order (other items between). */
    private static boolean inOrder(List<Acked> sub, List<Acked> all) {
        int at = 0;
        for (Acked a : all) {
            if (at < sub.size() && sub.get(at).equals(a)) {
                at++;
            }
        }
        return at == sub.size();
    }

    /** The longest time between two changes that arrived, from the last one before {@code at}. */
    private static long gapAcross(List<Seen> seen, long at) {
        long previous = seen.stream()
                .mapToLong(Seen::atNanos)
                .filter(t -> t <= at)
                .max()
                .orElse(at);
        long longest = 0;
        for (Seen s : seen) {
            if (s.atNanos() > previous) {
                longest = Math.max(longest, s.atNanos() - previous);
                previous = s.atNanos();
            }
        }
        return longest;
    }

    private static String rotated(List<String> endpoints, int first) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            out.add(endpoints.get((first + i) % endpoints.size()));
        }
        return String.join(",", out);
    }
}
