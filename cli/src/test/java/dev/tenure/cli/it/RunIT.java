package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `tenure run` and the holding commands' loss path, against a real server process. */
class RunIT {

    @TempDir
    static Path data;

    static ServerProcess server;

    @BeforeAll
    static void start() throws Exception {
        server = new ServerProcess(data.resolve("node")).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    static Processes.Running tenure(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of(args));
        return new Processes.Running(Processes.tenure(all), Map.of("TENURE_ENDPOINT", server.endpoint()));
    }

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
        String[] env = run.nextLine(Duration.ofSeconds(1)).split(" ");
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
}
