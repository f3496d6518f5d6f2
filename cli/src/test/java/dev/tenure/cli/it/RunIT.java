package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import dev.tenure.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** `tenure run` and the holding commands' loss path, against a real server process. */
class RunIT extends OnOneNode {

    @Test
    void runsTheCommandUnderTheLockAndReturnsItsExitCode() throws Exception {
        var run = tenure(
                "run",
                "run-lock",
                "--",
                "sh",
                "-c",
                "echo \"$TENURE_LOCK $TENURE_TOKEN $TENURE_SESSION $TENURE_PREVIOUS_END $TENURE_ENDPOINT\"; exit 7");
        assertThat(run.waitFor(Duration.ofSeconds(60))).isEqualTo(7);
        String[] env = run.nextLine(Duration.ofSeconds(1)).split(" ", -1);
        assertThat(env[0]).isEqualTo("run-lock");
        assertThat(Long.parseLong(env[1])).isPositive();
        assertThat(env[3]).isEqualTo("NONE");
        assertThat(env[4]).isEqualTo(server.endpoint());

        // The lock was released when the command exited: the next run gets it at once.
        var again = tenure("run", "run-lock", "--no-wait", "--", "sh", "-c", "echo $TENURE_PREVIOUS_END");
        assertThat(again.waitFor(Duration.ofSeconds(60))).isEqualTo(0);
        assertThat(again.nextLine(Duration.ofSeconds(1))).isEqualTo("RELEASED");
    }

    @Test
    void heldLockWithNoWaitExitsThree() throws Exception {
        try (var holder = tenure("acquire", "busy-lock", "--json")) {
            holder.nextLine(Duration.ofSeconds(30));
            var run = tenure("run", "busy-lock", "--no-wait", "--", "true");
            assertThat(run.waitFor(Duration.ofSeconds(60))).isEqualTo(3);
            var waited = tenure("acquire", "busy-lock", "--wait", "500ms");
            assertThat(waited.waitFor(Duration.ofSeconds(60))).isEqualTo(3);
            var bad = tenure("acquire", "busy-lock", "--ttl", "50ms");
            assertThat(bad.waitFor(Duration.ofSeconds(60))).isEqualTo(2);
            assertThat(bad.output()).contains("sessionTtlMs");
        }
    }

    @Test
    void lostLeaseStopsTheCommandAndExitsFour() throws Exception {
        Path marker = data.resolve("terminated");
        var run = tenure(
                "run",
                "lost-lock",
                "--ttl",
                "4s",
                "--grace",
                "2s",
                "--",
                "sh",
                "-c",
                "trap 'touch " + marker + "; exit 0' TERM; echo started; while true; do sleep 0.1; done");
        var holder = tenure("acquire", "lost-lock-2", "--ttl", "4s", "--json");
        assertThat(run.nextLine(Duration.ofSeconds(30))).isEqualTo("started");
        holder.nextLine(Duration.ofSeconds(30));

        // A paused server acknowledges no renewal: both holders' horizons pass and they must
        // give up on their own, without hearing from the server.
        server.signal("STOP");
        try {
            assertThat(run.waitFor(Duration.ofSeconds(30))).isEqualTo(4);
            assertThat(holder.waitFor(Duration.ofSeconds(30))).isEqualTo(4);
        } finally {
            server.signal("CONT");
        }
        assertThat(Files.exists(marker)).as("the command got SIGTERM").isTrue();
        assertThat(run.output()).contains("lost");
        assertThat(holder.output()).contains("lost");
    }

    @Test
    void aManualLeaseLivesWhileTheCommandRenewsItThroughThePipeAndIsLostWhenItStops() throws Exception {
        // Renews every 500 ms for 4 s: twice the 2 s lease TTL, so only the renewals kept it.
        var renewing = tenure(
                "run",
                "manual-lock",
                "--renew",
                "manual",
                "--lease-ttl",
                "2s",
                "--",
                "sh",
                "-c",
                "for i in 1 2 3 4 5 6 7 8; do echo >\"$TENURE_RENEW\"; sleep 0.5; done; echo done; exit 3");
        assertThat(renewing.waitFor(Duration.ofSeconds(60)))
                .as(renewing.output())
                .isEqualTo(3);
        assertThat(renewing.output()).contains("done").doesNotContain("lost");

        // The same loop, stuck after one renewal: the lease expires and the command is stopped.
        Path marker = data.resolve("stuck-terminated");
        var stuck = tenure(
                "run",
                "manual-lock",
                "--renew",
                "manual",
                "--lease-ttl",
                "2s",
                "--grace",
                "2s",
                "--",
                "sh",
                "-c",
                "trap 'touch " + marker + "; exit 0' TERM; echo >\"$TENURE_RENEW\"; echo stuck;"
                        + " while true; do sleep 0.1; done");
        assertThat(stuck.nextLine(Duration.ofSeconds(30))).isEqualTo("stuck");
        long stuckAt = System.nanoTime();
        assertThat(stuck.waitFor(Duration.ofSeconds(30))).as(stuck.output()).isEqualTo(4);
        assertThat(Duration.ofNanos(System.nanoTime() - stuckAt)).isLessThan(Duration.ofSeconds(15));
        assertThat(stuck.output()).contains("lost");
        assertThat(Files.exists(marker)).as("the command got SIGTERM").isTrue();

        // The next holder learns how the stuck one ended.
        var next = tenure("run", "manual-lock", "--no-wait", "--", "sh", "-c", "echo $TENURE_PREVIOUS_END");
        assertThat(next.waitFor(Duration.ofSeconds(60))).isEqualTo(0);
        assertThat(next.output()).contains("EXPIRED");
    }

    // The tree every test below runs: a shell, a child in the background and one in the foreground.
    private static final String TREE = "sleep 120 & sleep 121";

    /** Waits until the tree under {@code lock} has its supervisor, shell and two sleeps. */
    private static void awaitTree(String lock, Processes.Running run) throws InterruptedException {
        Await.atMost(Duration.ofSeconds(30))
                .failureDetails(run::output)
                .until(
                        "the process tree of " + lock,
                        () -> {
                            assertThat(run.process.isAlive())
                                    .as("tenure run runs: %s", run.output())
                                    .isTrue();
                            return ProcessTree.live(lock);
                        },
                        // the sleeps, not only four processes: the shell's children count before
                        // they have become sleeps
                        tree -> tree.size() >= 4 && sleeps(tree) == 2);
        // The command and both sleeps are in a process group of their own, led by the command.
        List<String> tree = ProcessTree.live(lock);
        assertThat(tree.stream().filter(p -> command(p).startsWith("sleep 12")).map(RunIT::pgid))
                .as(tree.toString())
                .hasSize(2)
                .allMatch(g -> tree.stream().anyMatch(p -> p.startsWith(g + " pgid " + g + " sh -c ")));
    }

    private static long sleeps(List<String> tree) {
        return tree.stream().filter(p -> command(p).startsWith("sleep 12")).count();
    }

    private static String pgid(String entry) {
        return entry.split(" ", 4)[2];
    }

    private static String command(String entry) {
        return entry.split(" ", 4)[3];
    }

    @Test
    void aLostLeaseLeavesNoProcessOfTheCommandsTree() throws Exception {
        var run = tenure("run", "tree-lost", "--ttl", "4s", "--grace", "1s", "--", "sh", "-c", TREE);
        awaitTree("tree-lost", run);
        server.signal("STOP");
        try {
            assertThat(run.waitFor(Duration.ofSeconds(30))).as(run.output()).isEqualTo(4);
        } finally {
            server.signal("CONT");
        }
        // The supervisor exits only once the group is empty, and tenure run only after it.
        assertThat(ProcessTree.live("tree-lost")).as(run.output()).isEmpty();
        assertThat(run.output()).contains("lost");
    }

    /**
     * The order at the source: the wall-clock time by which each process of the holder (the
     * `tenure run` JVM, the supervisor, the shell and both sleeps) had ended, as {@link TreeWatch}
     * records it (never too early), against the grant time the node wrote into the next holder's
     * grant. Every one must have ended strictly before it.
     */
    @Test
    void aKilledTenureRunTakesItsCommandsTreeWithItBeforeTheNextHolderIsGranted() throws Exception {
        var run = tenure("run", "tree-killed", "--timeout", TIMEOUT, "--", "sh", "-c", TREE);
        awaitTree("tree-killed", run);
        var waiter = tenure("acquire", "tree-killed", "--json", "--timeout", TIMEOUT);
        cli.awaitQueued("tree-killed", waiter);

        try (TreeWatch watch = new TreeWatch("tree-killed", run.pid())) {
            assertThat(watch.seen())
                    .as("the JVM and its tree: %s", watch.alive())
                    .isEqualTo(5);
            Instant killedAt = Instant.now();
            run.process.destroyForcibly(); // SIGKILL
            JsonObject grant = TenureCli.json(waiter.nextLine(Duration.ofSeconds(10)));
            Instant seenAt = Instant.now();
            long grantedAtMs = grant.get("granted_at_ms").getAsLong();
            Await.atMost(Duration.ofSeconds(10))
                    .until("every process of the tree ended", () -> watch.allEnded(), all -> all != null);
            System.out.printf(
                    "RunIT: SIGKILL of tenure run at 0 ms; every process of its tree ended by %d ms; the node"
                            + " granted the waiter at %d ms (granted_at_ms), which read it at %d ms;"
                            + " resolution %d ms over %d scans; each process ended by:%s%n",
                    TreeWatch.ms(killedAt, watch.allEnded()),
                    grantedAtMs - killedAt.toEpochMilli(),
                    TreeWatch.ms(killedAt, seenAt),
                    watch.resolution().toMillis(),
                    watch.scans(),
                    watch.report(killedAt));
            assertThat(grant.get("previous_end").getAsString()).isEqualTo("DISCONNECTED");
            // The node's clock agrees with this one: no grant before the kill that caused it.
            assertThat(grantedAtMs).isGreaterThanOrEqualTo(killedAt.toEpochMilli());
            assertThat(watch.endedBefore(grantedAtMs))
                    .as(
                            "every process of the holder ended before the grant at %d ms:%s",
                            grantedAtMs - killedAt.toEpochMilli(), watch.report(killedAt))
                    .isTrue();
        }
        waiter.close();
    }

    /**
     * The clients' request timeout (5 s by default), times the test time scale: on a loaded
     * machine a client's first session open may take longer, which is not what these tests are
     * about.
     */
    private static final String TIMEOUT =
            Processes.scaled(Duration.ofSeconds(5)).toMillis() + "ms";

    @Test
    void aCommandThatEndsReturnsItsExitCodeAndTakesWhatItLeftRunningWithIt() throws Exception {
        var run = tenure("run", "tree-ends", "--", "sh", "-c", "sleep 120 & sleep 121 & echo started; exit 5");
        assertThat(run.nextLine(Duration.ofSeconds(30))).isEqualTo("started");
        assertThat(run.waitFor(Duration.ofSeconds(30))).as(run.output()).isEqualTo(5);
        assertThat(ProcessTree.live("tree-ends")).isEmpty();
    }

    @Test
    void withoutSetsidAndSetprivItRefusesToRunTheCommand() throws Exception {
        Path marker = data.resolve("ran-unsupervised");
        var run = cli.withEnv(Map.of("PATH", data.resolve("empty-path").toString()))
                .run("run", "no-tools", "--", "/bin/touch", marker.toString());
        assertThat(run.waitFor(Duration.ofSeconds(60))).isEqualTo(1);
        assertThat(run.output()).contains("setpriv").contains("refusing");
        assertThat(Files.exists(marker)).isFalse();
    }
}
