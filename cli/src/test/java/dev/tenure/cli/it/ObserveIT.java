package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.client.LeaderView;
import dev.tenure.client.Leadership;
import dev.tenure.client.Observation;
import dev.tenure.client.ObserveListener;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.testkit.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Observers of an election on a real node, a `tenure observe --json` process and a {@code
 * client.observe} in this JVM, while leaders come and go: a `tenure elect` leader killed with
 * kill -9 (handed over after about the disconnect grace), the next one stopped with SIGTERM (it
 * resigns: handed over at once), and a leader that proclaims a new value. Both observers see
 * exactly the same terms, in order, with increasing tokens, and the new value.
 */
class ObserveIT extends OnOneNode {
    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** A client's timeout for each request: a loaded machine may take seconds to open a session. */
    private static final String PATIENT = "15s";
    /** Changes the node keeps: few, so that a resume can fall behind them. */
    private static final int KEPT = 32;

    @BeforeAll
    static void startANodeThatKeepsFewChanges() throws Exception {
        serve(new ServerProcess(data.resolve("node")).withOptions("--revisions-kept-max", Integer.toString(KEPT)));
    }

    /** One line of an observer: "none", or "session token value". */
    private static String seen(boolean leader, long session, long token, String value) {
        return leader ? session + " " + token + " " + value : "none";
    }

    private static String seen(JsonObject o) {
        return seen(
                o.get("leader").getAsBoolean(),
                o.get("session").getAsLong(),
                o.get("token").getAsLong(),
                o.get("value").getAsString());
    }

    private static String seen(LeaderView v) {
        return seen(v.hasLeader(), v.sessionId(), v.token(), new String(v.value(), StandardCharsets.UTF_8));
    }

    /** The Java observer's views, each with the time it arrived. */
    private record Heard(String view, long atNanos) {}

    @Test
    void everyObserverSeesEveryTermInOrderAndTheProclaimedValue() throws Exception {
        List<Heard> heard = new CopyOnWriteArrayList<>();
        CompletableFuture<TenureException> ended = new CompletableFuture<>();
        ObserveListener listener = new ObserveListener() {
            @Override
            public void onLeader(LeaderView view) {
                heard.add(new Heard(seen(view), System.nanoTime()));
            }

            @Override
            public void onEnded(TenureException cause) {
                ended.complete(cause);
            }
        };
        List<String> lines = new ArrayList<>();
        try (var a = tenure("elect", "obs", "--value", "a", "--ttl", "30s", "--json", "--timeout", PATIENT);
                TenureClient client = TenureClient.builder()
                        .endpoints(server.endpoint())
                        .sessionTtl(Duration.ofSeconds(20))
                        .requestTimeout(Duration.ofSeconds(15))
                        .build()) {
            JsonObject electedA = json(a.nextLine(PATIENCE));
            long ta = electedA.get("token").getAsLong();
            String leaderA = seen(true, electedA.get("session").getAsLong(), ta, "a");
            try (var observer = tenure("observe", "obs", "--json", "--timeout", PATIENT);
                    Observation observation = client.observe("obs", listener)) {
                lines.add(seen(json(observer.nextLine(PATIENCE))));
                assertThat(lines).as("the current leader first").containsExactly(leaderA);
                try (var b = tenure("elect", "obs", "--value", "b", "--ttl", "30s", "--json", "--timeout", PATIENT);
                        Session sessionC = client.openSession()) {
                    try {
                        cli.awaitQueued("obs", b);
                    } catch (AssertionError e) {
                        throw new AssertionError("the leader: " + a.output(), e);
                    }
                    CompletableFuture<Leadership> c =
                            sessionC.campaignAsync("obs", "c".getBytes(StandardCharsets.UTF_8));
                    awaitCandidates(2);

                    long killedAt = System.nanoTime();
                    a.kill9();
                    JsonObject electedB = json(b.nextLine(PATIENCE));
                    long tb = electedB.get("token").getAsLong();
                    String leaderB = seen(true, electedB.get("session").getAsLong(), tb, "b");
                    lines.add(seen(json(observer.nextLine(PATIENCE))));
                    lines.add(seen(json(observer.nextLine(PATIENCE))));
                    long killSeenMs = (System.nanoTime() - killedAt) / 1_000_000;
                    assertThat(lines).containsExactly(leaderA, "none", leaderB);

                    long termAt = System.nanoTime();
                    b.signal("TERM");
                    lines.add(seen(json(observer.nextLine(PATIENCE))));
                    lines.add(seen(json(observer.nextLine(PATIENCE))));
                    long termSeenMs = (System.nanoTime() - termAt) / 1_000_000;
                    assertThat(b.waitFor(PATIENCE)).isEqualTo(0);
                    Leadership leaderC = c.get(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                    long tc = leaderC.token();
                    String seenC = seen(true, sessionC.id(), tc, "c");
                    leaderC.proclaim("c2".getBytes(StandardCharsets.UTF_8));
                    lines.add(seen(json(observer.nextLine(PATIENCE))));
                    leaderC.resign();
                    lines.add(seen(json(observer.nextLine(PATIENCE))));

                    List<String> expected = List.of(
                            leaderA, "none", leaderB, "none", seenC, seen(true, sessionC.id(), tc, "c2"), "none");
                    assertThat(lines).as("the observe process").containsExactlyElementsOf(expected);
                    assertThat(ta).isLessThan(tb);
                    assertThat(tb).isLessThan(tc);
                    Await.atMost(PATIENCE).until("the Java observer heard every view", () -> heard.size() >= 7);
                    assertThat(heard)
                            .extracting(Heard::view)
                            .as("client.observe")
                            .containsExactlyElementsOf(expected);
                    long javaKillMs = (heard.get(2).atNanos() - killedAt) / 1_000_000;
                    long javaTermMs = (heard.get(4).atNanos() - termAt) / 1_000_000;
                    System.out.println("ObserveIT: kill -9 of the leader -> observers saw the next leader in "
                            + killSeenMs + " ms (tenure observe), " + javaKillMs + " ms (client.observe)");
                    System.out.println("ObserveIT: SIGTERM of the leader -> observers saw the next leader in "
                            + termSeenMs + " ms (tenure observe), " + javaTermMs + " ms (client.observe)");
                    assertThat(killSeenMs)
                            .as("through the session end, not the 30 s TTL")
                            .isLessThan(10_000);
                    assertThat(observer.stdout.poll()).as("nothing more").isNull();
                    assertThat(ended).isNotDone();
                    assertThat(observation.lastRevision()).isPositive();
                }
            }
        }
    }

    @Test
    void aResumeReportsTheChangesAfterItsRevisionAndOneNoLongerKeptExits3() throws Exception {
        var negative = tenure("observe", "obs2", "--from-revision=-1");
        assertThat(negative.waitFor(PATIENCE)).as(negative.output()).isEqualTo(2);
        try (TenureClient client =
                TenureClient.builder().endpoints(server.endpoint()).build()) {
            CompletableFuture<LeaderView> first = new CompletableFuture<>();
            long before;
            try (Observation o = client.observe("obs2", first::complete)) {
                LeaderView now = first.get(PATIENCE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
                assertThat(now.hasLeader()).isFalse();
                before = now.revision();
                assertThat(o.lastRevision()).isEqualTo(before);
            }
            try (var p = tenure("elect", "obs2", "--value", "x", "--json")) {
                json(p.nextLine(PATIENCE));
                p.signal("TERM");
                assertThat(p.waitFor(PATIENCE)).isEqualTo(0);
            }
            try (var resumed = tenure("observe", "obs2", "--json", "--from-revision", Long.toString(before))) {
                assertThat(seen(json(resumed.nextLine(PATIENCE)))).endsWith(" x");
                assertThat(seen(json(resumed.nextLine(PATIENCE)))).isEqualTo("none");
            }
            for (int i = 0; i <= KEPT; i++) {
                client.kv().put("obs2-filler", new byte[] {1});
            }
            try (var tooOld = tenure("observe", "obs2", "--json", "--from-revision", Long.toString(before))) {
                assertThat(tooOld.waitFor(PATIENCE)).as(tooOld.output()).isEqualTo(3);
                assertThat(tooOld.output()).contains("revision compacted").contains("a term may have passed unseen");
            }
        }
    }

    private static void awaitCandidates(int n) throws Exception {
        Await.atMost(PATIENCE).until("" + n + " candidates queued", () -> {
            try (var l = tenure("elect", "obs", "--list", "--json")) {
                l.waitFor(PATIENCE);
                return json(l.nextLine(PATIENCE)).getAsJsonArray("candidates").size() == n;
            }
        });
    }
}
