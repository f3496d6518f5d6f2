package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureException;
import dev.tenure.testkit.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On a real 3-node cluster, a client given a follower's endpoint first sends its calls to the
 * leader's gateway (which the first node names) while its session stays on the follower; when the
 * leader is killed, the session and its lease stay, and calls move to the new leader.
 */
class LeaderRoutingIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path data;

    /** Acquires node {@code endpoint}'s gateway served: its admin port is the client port + 1. */
    private static long acquiresServedBy(String endpoint) throws Exception {
        int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
        String metrics = HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (port + 1) + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return metrics.lines()
                .filter(l -> l.startsWith("grpc_server_processing_duration_seconds_count{")
                        && l.contains("method=\"Acquire\""))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static void cycles(Session session, String lock, int n) {
        for (int i = 0; i < n; i++) {
            session.acquire(lock).close();
        }
    }

    @Test
    void callsGoToTheLeaderWhileTheSessionStaysOnAFollowerThroughTheLeadersKill() throws Exception {
        try (ClusterProcess cluster = new ClusterProcess(data).start()) {
            int leader = cluster.leaderSeenBy(0);
            assertThat(leader).as("a leader").isBetween(0, 2);
            int follower = (leader + 1) % 3;
            int other = (leader + 2) % 3;
            String leaderEndpoint = cluster.nodeEndpoints.get(leader);
            String followerEndpoint = cluster.nodeEndpoints.get(follower);
            String otherEndpoint = cluster.nodeEndpoints.get(other);
            try (TenureClient client = TenureClient.builder()
                            .endpoints(List.of(followerEndpoint, otherEndpoint, leaderEndpoint))
                            .sessionTtl(Duration.ofSeconds(10))
                            .build();
                    Session session = client.openSession()) {
                // The first calls may go out before the answer naming the leader is in.
                cycles(session, "routing/warm", 5);
                long atLeader = acquiresServedBy(leaderEndpoint);
                long atFollower = acquiresServedBy(followerEndpoint);
                cycles(session, "routing/a", 20);
                assertThat(acquiresServedBy(leaderEndpoint) - atLeader)
                        .as("acquires the leader's gateway served")
                        .isEqualTo(20);
                assertThat(acquiresServedBy(followerEndpoint) - atFollower)
                        .as("acquires the first endpoint's gateway served")
                        .isZero();

                Lease held = session.acquire("routing/held");
                cluster.kill9(leader);
                // Retried through the election until a new leader commits it.
                Await.atMost(Duration.ofSeconds(60)).until("an acquire after the leader's kill", () -> {
                    try {
                        session.acquire("routing/after").close();
                        return true;
                    } catch (TenureException unavailableYet) {
                        return false;
                    }
                });
                int newLeader = Await.atMost(Duration.ofSeconds(30))
                        .every(Duration.ofMillis(100))
                        .until("a new leader", () -> cluster.leaderSeenBy(follower), id -> id >= 0 && id != leader);
                String newLeaderEndpoint = cluster.nodeEndpoints.get(newLeader);
                String newFollowerEndpoint = cluster.nodeEndpoints.get(3 - leader - newLeader);
                // A call failed at the old leader; the client asked again and follows the new one.
                Await.atMost(Duration.ofSeconds(30)).until("calls at the new leader", () -> {
                    long before = acquiresServedBy(newLeaderEndpoint);
                    cycles(session, "routing/b", 5);
                    return acquiresServedBy(newLeaderEndpoint) - before == 5;
                });
                long atNewLeader = acquiresServedBy(newLeaderEndpoint);
                long atNewFollower = acquiresServedBy(newFollowerEndpoint);
                cycles(session, "routing/c", 20);
                assertThat(acquiresServedBy(newLeaderEndpoint) - atNewLeader).isEqualTo(20);
                assertThat(acquiresServedBy(newFollowerEndpoint) - atNewFollower)
                        .isZero();

                assertThat(held.lost())
                        .as("the lease held through the leader's kill")
                        .isNotDone();
                Await.atMost(Duration.ofSeconds(10)).until("the held lease valid", held::isValid);
                assertThat(client.status("routing/held").holder().map(h -> h.token()))
                        .contains(held.token());
                System.out.println("LeaderRoutingIT: the lease held through the leader's kill "
                        + (held.invalidated().isDone() ? "went in doubt at least once" : "never went in doubt"));
            }
        }
    }
}
