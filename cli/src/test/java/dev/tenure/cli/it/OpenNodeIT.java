package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.TestPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A default node has no anonymous admin, and a node that others can reach is not open by
 * accident: real `tenure` processes, as an operator and a client would run them.
 */
class OpenNodeIT extends OnOneNode {
    @Test
    void aForcedReleaseOnANodeWithoutAnAclExits6NamingHowToAllowItAndTheHolderKeepsItsLease() throws Exception {
        try (var holder = cli.run("acquire", "open-lock", "--json")) {
            long token = TenureCli.json(holder.nextLine(Duration.ofSeconds(30)))
                    .get("token")
                    .getAsLong();
            try (var forced = cli.run("release", "open-lock", "--token", Long.toString(token), "--force")) {
                assertThat(forced.waitFor(Duration.ofSeconds(30)))
                        .as(forced.output())
                        .isEqualTo(6);
                assertThat(forced.output())
                        .contains("tenure: denied: ")
                        .contains("a forced release is an admin act, and this node has no ACL")
                        .contains("--acl")
                        .contains("--unsafe-allow-forced-release");
            }
            // The README's `tenure status LOCK` still answers an anonymous client of a default node.
            try (var status = cli.run("status", "open-lock", "--json")) {
                assertThat(status.waitFor(Duration.ofSeconds(30))).isEqualTo(0);
                JsonObject view = TenureCli.json(status.nextLine(Duration.ofSeconds(1)));
                assertThat(view.getAsJsonObject("holder").get("token").getAsLong())
                        .as("the holder keeps its lease")
                        .isEqualTo(token);
            }
            assertThat(holder.process.isAlive())
                    .as("the holder was told nothing: it holds on")
                    .isTrue();
        }
    }

    @Test
    void aPlaintextNodeBeyondLoopbackRefusesToStartWithOneLineAndExit2() throws Exception {
        Path dir = data.resolve("never");
        // 192.0.2.1 is a documentation address (TEST-NET-1): routable, on no machine, and the check
        // comes before anything is bound.
        List<String> args = List.of(
                "server",
                "--data",
                dir.toString(),
                "--members",
                "0=192.0.2.1:" + LoopbackPorts.freeTcpPort() + "@" + TestPorts.freeAeronPortBase(),
                "--admin-port",
                "0");
        try (Processes.Running node = TenureCli.start(args)) {
            assertThat(node.waitFor(Duration.ofSeconds(60))).as(node.output()).isEqualTo(2);
            assertThat(node.output())
                    .isEqualTo("err: tenure: refusing to serve without TLS on 192.0.2.1, where anyone who reaches it"
                            + " could take, release and write: give --tls-cert and --tls-key, or --insecure to accept"
                            + " an open node (docs/security.md)");
        }
        assertThat(dir)
                .as("nothing started: not even the data directory was made")
                .doesNotExist();
    }
}
