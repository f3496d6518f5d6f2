package dev.tenure.cli.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.tools.attach.VirtualMachine;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Await;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exit statuses a node's own fatal errors end it with, shown by real processes: a gateway thread
 * that ends (13) and a thread that dies of an exception nothing caught (14), both caused inside a
 * serving node by a {@link FaultAgent}; a SIGHUP, which ends nothing; and what Aeron calls a
 * warning, which a restarted node logs as one.
 */
class NodeExitsIT {
    @TempDir
    Path dir;

    /** The gateway's one channel into the log ends: the node would answer nothing but timeouts. */
    @Test
    void aGatewayChannelThatEndsEndsTheNodeWithStatus13() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data")).start()) {
            inject(server, "stop:tenure-gateway-cluster");
            int status = server.awaitExit(Duration.ofSeconds(30));
            assertThat(status).as(server.lines().toString()).isEqualTo(13);
            assertThat(fatalLines(server))
                    .containsExactly("err: tenure: fatal: gateway stopped (exit 13): thread tenure-gateway-cluster"
                            + " ended: java.lang.ThreadDeath");
        }
    }

    @Test
    void aThreadThatDiesOfAnUncaughtExceptionEndsTheNodeWithStatus14() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data")).start()) {
            inject(server, "throw");
            int status = server.awaitExit(Duration.ofSeconds(30));
            assertThat(status).as(server.lines().toString()).isEqualTo(14);
            assertThat(fatalLines(server))
                    .containsExactly("err: tenure: fatal: thread died (exit 14): thread " + FaultAgent.THROWING_THREAD
                            + ": java.lang.IllegalStateException: " + FaultAgent.THROWN);
        }
    }

    /**
     * Without --acl there is nothing to reload: the JVM's default would end the node (129), so a
     * closed terminal or a host-wide {@code kill -HUP} would stop it.
     */
    @Test
    void aHangUpWithoutAnAclIsLoggedAndTheNodeServesOn() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data")).start()) {
            server.signal("HUP");
            Await.atMost(Duration.ofSeconds(20))
                    .failureDetails(() -> String.join("\n", server.lines()))
                    .until(
                            "the node logs the ignored SIGHUP",
                            () -> server.lines()
                                    .contains(
                                            "err: tenure: SIGHUP ignored: this node has no --acl file to read again"));
            try (TenureClient tenure =
                    TenureClient.builder().endpoints(server.endpoint()).build()) {
                tenure.kv().put("after-the-hang-up", "served".getBytes(UTF_8));
                assertThat(tenure.kv().get("after-the-hang-up").orElseThrow().value())
                        .isEqualTo("served".getBytes(UTF_8));
            }
            assertThat(server.alive()).isTrue();
        }
    }

    /**
     * A lone node restarted on its data: Aeron reports "quorum position went backwards" through
     * its error handler with its own severity WARN. Logged as a cluster error with a stack, it was
     * a healthy node's first lines.
     */
    @Test
    void aRestartedNodeLogsAeronsWarningsAsWarnings() throws Exception {
        try (ServerProcess server = new ServerProcess(dir.resolve("data")).start()) {
            try (TenureClient tenure =
                    TenureClient.builder().endpoints(server.endpoint()).build()) {
                tenure.kv().put("before-the-restart", "kept".getBytes(UTF_8));
            }
            server.signal("TERM");
            assertThat(server.awaitExit(Duration.ofSeconds(30))).isEqualTo(143);
            server.start();
            List<String> lines = server.lines();
            // Aeron warns that the quorum position went backwards on most restarts, not all (it
            // depends on when the first heartbeat lands): where it does, it is a warning line.
            // FatalErrorsTest shows the classification itself on every run.
            assertThat(lines).as("a healthy restart").noneMatch(l -> l.contains("cluster error"));
            assertThat(lines)
                    .filteredOn(l -> l.contains("went backwards"))
                    .allMatch(l -> l.startsWith("err: tenure: cluster warning: quorum position went backwards: "));
        }
    }

    /**
     * Loads the agent with {@code fault}, one that ends the node. The node may end before the
     * attach call's answer is written (the call then fails with an I/O error, "Premature EOF"), so
     * the call's own outcome proves nothing either way: the caller checks the node's exit status
     * and its fatal line, which only the fault produces.
     */
    private void inject(ServerProcess server, String fault) throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(server.pid()));
        try {
            vm.loadAgent(FaultAgent.jar(dir).toString(), fault);
        } catch (IOException endedDuringTheCall) {
            // the node ended while answering: what the fault does
        } finally {
            try {
                vm.detach();
            } catch (IOException alreadyGone) {
                // the node has ended: nothing is left to detach from
            }
        }
    }

    private static List<String> fatalLines(ServerProcess server) {
        return server.lines().stream()
                .filter(l -> l.startsWith("err: tenure: fatal:"))
                .toList();
    }
}
