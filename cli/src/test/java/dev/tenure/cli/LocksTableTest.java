package dev.tenure.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.ListedLock;
import dev.tenure.client.LockStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** `tenure locks` as a table: every holder of a lock is shown, not only its oldest lease. */
class LocksTableTest {
    private static final long NOW_MS = 100_000;

    private static LockStatus.Holder holder(long session, long token, long sinceMs, String principal, boolean shared) {
        return new LockStatus.Holder(
                session,
                token,
                Instant.ofEpochMilli(sinceMs),
                "c",
                Duration.ZERO,
                Duration.ZERO,
                Duration.ZERO,
                Optional.empty(),
                principal,
                shared);
    }

    private static List<String> lines(ListedLock lock) {
        return LocksCommand.text(lock, NOW_MS).lines().toList();
    }

    @Test
    void aPlainLockIsOneLineWithItsHolderAndWaiters() {
        ListedLock lock = new ListedLock("orders", Optional.of(holder(3, 12, 95_000, "", false)), 2, Optional.empty());
        assertThat(lines(lock))
                .containsExactly(String.format("%-40s %12s %10s %-16s %10s %7s", "orders", 12, 3, "-", "5000ms", 2));
    }

    @Test
    void aSharedLockShowsEveryHolderOldestFirstEachOnItsOwnLine() {
        ListedLock lock = new ListedLock(
                "reports",
                Optional.of(holder(3, 12, 95_000, "alice", true)),
                1,
                Optional.empty(),
                List.of(holder(3, 12, 95_000, "alice", true), holder(5, 14, 99_000, "", true)));
        assertThat(lines(lock))
                .containsExactly(
                        String.format(
                                "%-40s %12s %10s %-16s %10s %7s", "reports (shared)", 12, 3, "alice", "5000ms", 1),
                        String.format("%-40s %12s %10s %-16s %10s", "  +", 14, 5, "-", "1000ms"));
    }

    @Test
    void aSemaphoreSaysHowManyLeasesItHasAndListsEach() {
        ListedLock lock = new ListedLock(
                "pool",
                Optional.of(holder(7, 20, 90_000, "", false)),
                0,
                Optional.empty(),
                List.of(
                        holder(7, 20, 90_000, "", false),
                        holder(8, 21, 91_000, "", false),
                        holder(9, 25, 99_500, "", false)));
        List<String> lines = lines(lock);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0))
                .startsWith("pool (3 leases) ")
                .contains(" 20 ", " 7 ")
                .endsWith(" 0");
        assertThat(lines.get(1)).startsWith("  + ").contains(" 21 ", " 8 ", "9000ms");
        assertThat(lines.get(2)).startsWith("  + ").contains(" 25 ", " 9 ").endsWith("500ms");
    }

    @Test
    void aFreeLockInItsDelayHasNoHolderLine() {
        ListedLock lock = new ListedLock("x", Optional.empty(), 1, Optional.of(Instant.ofEpochMilli(NOW_MS + 50)));
        assertThat(lines(lock))
                .containsExactly(String.format("%-40s %12s %10s %-16s %10s %7s", "x", "-", "-", "-", "delayed", 1));
    }
}
