package dev.tenure.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.aeron.cluster.service.Cluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Each member's agents know whether requests wait on its clustered service. Aeron tells a
 * service of its role only when it changes from the one it starts in, a follower's, so a member
 * that stays a follower must learn it otherwise; if it did not, its service would be woken at
 * every commit as if clients awaited it.
 */
class ServiceRoleTest {

    @RegisterExtension
    static final NodeExtension cluster = NodeExtension.cluster();

    @Test
    void onlyTheLeadersServiceIsAwaited() {
        long leaders = cluster.servers().stream()
                .filter(s -> s.role() == Cluster.Role.LEADER)
                .count();
        assertThat(leaders).isEqualTo(1);
        for (TenureServer server : cluster.servers()) {
            assertThat(server.wakeup().serviceAnswers())
                    .as("node on port %d, %s", server.port(), server.role())
                    .isEqualTo(server.role() == Cluster.Role.LEADER);
        }
    }
}
