package dev.tenure.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.LeaderResponse;
import dev.tenure.api.v1.ServerStatusRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Calls go to the endpoint a node names as the leader's; session streams stay where they were
 * opened, and a failed call at the leader sends calls back and asks again.
 */
class LeaderRoutingTest {
    private final Harness h = new Harness(3);

    @AfterEach
    void tearDown() {
        h.close();
    }

    private LeaderResponse leaderAt(int node) {
        return LeaderResponse.newBuilder()
                .setLeaderId(node)
                .setEndpoint(h.endpoints.get(node))
                .build();
    }

    /** The node each acquire arrived on, in order. */
    private List<Integer> acquireNodes() {
        List<Integer> nodes = new java.util.ArrayList<>();
        for (int i = 0; i < h.fake.requests.size(); i++) {
            if (h.fake.requests.get(i) instanceof AcquireRequest) {
                nodes.add(h.fake.requestNodes.get(i));
            }
        }
        return nodes;
    }

    /** Fires the client's timers (a retry's backoff) as they come due, until {@code call} ends. */
    private void runTimersUntilDone(CompletableFuture<Lease> call) throws Exception {
        while (!call.isDone()) {
            if (h.time.awaitPending(1, Duration.ofMillis(20))) {
                h.time.advanceToNext();
            }
        }
        call.get(5, TimeUnit.SECONDS);
    }

    @Test
    void callsGoToTheLeadersEndpointWhileTheSessionStaysOnTheFirst() {
        h.fake.leader = leaderAt(2);
        Session session = h.client().openSession();
        session.acquire("a");
        session.acquire("b");

        assertThat(h.fake.leaderAsks).as("asked once, at the first endpoint").containsExactly(0);
        assertThat(acquireNodes()).containsExactly(2, 2);
        assertThat(h.fake.latest().node).as("the session's stream").isZero();
    }

    @Test
    void aCallFailedAtTheLeaderGoesBackToTheFirstEndpointAndTheLeaderIsAskedAgain() throws Exception {
        h.fake.leader = leaderAt(2);
        Session session = h.client().openSession();
        session.acquire("a");
        h.fake.leader = leaderAt(1); // a new term began
        h.fake.unavailableNext.set(1);

        CompletableFuture<Lease> b = session.acquireAsync("b", Duration.ZERO);
        runTimersUntilDone(b);
        session.acquire("c");

        assertThat(h.fake.leaderAsks).containsExactly(0, 0);
        // "b" failed at the old leader and its retry went where the sessions are, by then
        // already knowing the new leader or not; "c" goes to the new leader.
        List<Integer> nodes = acquireNodes();
        assertThat(nodes.subList(0, 2)).containsExactly(2, 2);
        assertThat(nodes.get(nodes.size() - 1)).isEqualTo(1);
    }

    @Test
    void aStatusIsAskedWhereTheSessionsAreNotAtTheLeader() {
        h.fake.leader = leaderAt(2);
        Session session = h.client().openSession();
        session.acquire("a");
        h.client().serverStatus();

        List<Integer> statusNodes = new java.util.ArrayList<>();
        for (int i = 0; i < h.fake.requests.size(); i++) {
            if (h.fake.requests.get(i) instanceof ServerStatusRequest) {
                statusNodes.add(h.fake.requestNodes.get(i));
            }
        }
        assertThat(acquireNodes()).containsExactly(2);
        assertThat(statusNodes).as("the status is the answering node's own").containsExactly(0);
    }

    @Test
    void aLeadershipChangeThatFailsNoCallIsLearnedAtTheNextRecheck() {
        h.fake.leader = leaderAt(2);
        Session session = h.client().openSession();
        session.acquire("a");
        h.fake.leader = leaderAt(1); // node 2 stepped down and still serves, as a follower

        h.time.advance(Duration.ofSeconds(29));
        session.acquire("b");
        assertThat(h.fake.leaderAsks).as("not asked again before the recheck").containsExactly(0);
        h.time.advance(Duration.ofSeconds(1));
        session.acquire("c");

        assertThat(h.fake.leaderAsks).containsExactly(0, 0);
        assertThat(acquireNodes()).containsExactly(2, 2, 1);
    }

    @Test
    void aQuestionAskedAfterAFailedCallPutsTheRecheckOffAPeriod() throws Exception {
        h.fake.leader = leaderAt(2);
        Session session = h.client().openSession();
        session.acquire("a");
        h.time.advance(Duration.ofSeconds(15));
        h.fake.unavailableNext.set(1); // fails at the leader's endpoint: the client asks again then
        CompletableFuture<Lease> b = session.acquireAsync("b", Duration.ZERO);
        runTimersUntilDone(b);
        assertThat(h.fake.leaderAsks).hasSize(2);

        h.time.advance(Duration.ofSeconds(20)); // 35 s after the first answer, 20 after the second
        session.acquire("c");
        assertThat(h.fake.leaderAsks).as("the first answer's recheck withdrawn").hasSize(2);
        h.time.advance(Duration.ofSeconds(10));
        session.acquire("d");
        assertThat(h.fake.leaderAsks).as("30 s after the second answer").hasSize(3);
    }

    @Test
    void aLeaderNamedByAnEndpointTheClientWasNotGivenLeavesCallsOnTheFirst() {
        h.fake.leader = LeaderResponse.newBuilder()
                .setLeaderId(2)
                .setEndpoint("node-2.example:7420")
                .build();
        Session session = h.client().openSession();
        session.acquire("a");

        assertThat(acquireNodes()).containsExactly(0);
        h.time.advance(Duration.ofSeconds(5));
        assertThat(h.fake.leaderAsks)
                .as("not asked again without a failed call")
                .containsExactly(0);
    }

    @Test
    void aNodeThatKnowsNoLeaderIsAskedAgainASecondLater() {
        h.fake.leader = LeaderResponse.newBuilder().setLeaderId(-1).build();
        Session session = h.client().openSession();
        session.acquire("a");
        assertThat(acquireNodes()).containsExactly(0);

        h.fake.leader = leaderAt(1);
        h.time.advance(Duration.ofSeconds(1));
        session.acquire("b");

        assertThat(h.fake.leaderAsks).containsExactly(0, 0);
        assertThat(acquireNodes()).containsExactly(0, 1);
    }

    @Test
    void aNodeOlderThanTheQuestionLeavesCallsOnTheFirstAndIsNotAskedAgain() {
        Session session = h.client().openSession();
        session.acquire("a");
        h.time.advance(Duration.ofSeconds(5));
        session.acquire("b");

        assertThat(h.fake.leaderAsks).containsExactly(0);
        assertThat(acquireNodes()).containsExactly(0, 0);
    }

    @Test
    void aClientOfOneEndpointNeverAsks() {
        try (Harness one = new Harness(1)) {
            one.fake.leader = LeaderResponse.newBuilder()
                    .setLeaderId(0)
                    .setEndpoint(one.endpoints.get(0))
                    .build();
            one.client().openSession().acquire("a");
            assertThat(one.fake.leaderAsks).isEmpty();
        }
    }
}
