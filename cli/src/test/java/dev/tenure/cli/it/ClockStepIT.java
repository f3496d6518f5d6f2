package dev.tenure.cli.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.Lease;
import dev.tenure.client.LockStatus;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.lab.process.Faketime;
import dev.tenure.testkit.Pause;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's wall clock is stepped by an hour, forward and back, while leases are held: a
 * real server process runs under libfaketime (installed by .ci/run), which moves only its wall
 * clock, as an NTP step or an operator would. Lease expiry must follow elapsed time: a forward
 * step expires nothing early, a backward step does not stop a silent holder's lease from
 * expiring on time.
 */
class ClockStepIT {

    private static final Duration TTL = Duration.ofSeconds(6);

    @TempDir
    Path dir;

    @Test
    void wallClockStepsOnTheLeaderNeitherExpireLeasesEarlyNorStopExpiry() throws Exception {
        Path offset = dir.resolve("wall-clock-offset");
        Files.writeString(offset, "+0\n");
        try (ServerProcess server = new ServerProcess(dir.resolve("node")).start(fakeWallClock(offset));
                TenureClient client = TenureClient.builder()
                        .endpoints(server.endpoint())
                        .sessionTtl(TTL)
                        .build();
                Session session = client.openSession()) {
            Lease lease = session.acquire("clock-held");

            Files.writeString(offset, "+3600\n");
            // Two renewal rounds and more than half the TTL after the step: a clock read as
            // calendar time would have expired the lease at the first timer after the jump.
            Pause.forMillis(TTL.toMillis() * 2 / 3 + 2_000);
            LockStatus held = client.status("clock-held");
            assertThat(held.holder()).as("holder after a +1 h step").isPresent();
            assertThat(held.holder().orElseThrow().token()).isEqualTo(lease.token());
            assertThat(lease.lost()).as("the holder's own view").isNotDone();
            try (Session other = client.openSession()) {
                assertThat(other.tryAcquire("clock-held"))
                        .as("a second acquirer")
                        .isEmpty();
            }

            // Back by the hour: a holder that stops renewing (SIGSTOP) still expires after its TTL.
            try (var silent = new Processes.Running(
                    Processes.worker(
                            PausableHolder.class.getName(),
                            List.of(server.endpoint(), "clock-silent", "clock-key", Long.toString(TTL.toMillis()))),
                    Map.of())) {
                long silentToken =
                        Long.parseLong(silent.nextLine(Duration.ofSeconds(30)).substring("granted ".length()));
                Files.writeString(offset, "+0\n");
                silent.signal("STOP");
                long stoppedAt = System.nanoTime();
                Lease next = session.acquire("clock-silent", TTL.multipliedBy(4));
                long waitedMs = (System.nanoTime() - stoppedAt) / 1_000_000;
                assertThat(next.previousToken()).isEqualTo(silentToken);
                assertThat(next.previousEnd()).contains(LossReason.EXPIRED);
                assertThat(waitedMs)
                        .as("expired within about one TTL of going silent despite the -1 h step")
                        .isLessThan(TTL.toMillis() * 2 + 2_000);
                silent.signal("CONT");
            }
            assertThat(lease.lost())
                    .as("the first holder kept its lease throughout")
                    .isNotDone();
        }
    }

    /** libfaketime moving the wall clock only, re-reading the offset file every second. */
    private static Map<String, String> fakeWallClock(Path offsetFile) {
        Path lib = Faketime.library()
                .orElseThrow(() -> new AssertionError(
                        "libfaketime is not installed (apt-get install libfaketime; .ci/run installs it)"));
        return Faketime.wallClockEnv(lib, offsetFile);
    }
}
