package dev.tenure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tenure.client.StaleTokenException;
import dev.tenure.testkit.Await;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A fence row belongs to one lock: the lock of the resource's first guard. Tokens are global, so
 * without this a genuine current token of any other lock, higher than the resource's mark, would
 * raise it and lock the resource's real holder out until its lock's next grant. On one database
 * (subclasses pick it); {@code ForgedTokenContract} shows the same with a verifier that confirms
 * the other lock's token.
 */
abstract class OneLockPerResourceContract extends DatabaseTest {
    private static final Duration BLOCKED_WITHIN = Duration.ofSeconds(10);

    @Test
    void theFirstGuardRecordsItsLock() throws SQLException {
        writeUnder("orders-lock", "orders", 5, "a");
        assertThat(Tables.storedLock(ds, fence, "orders")).hasValue("orders-lock");
        writeUnder("orders-lock", "orders", 6, "b");
        assertThat(Tables.storedLock(ds, fence, "orders")).hasValue("orders-lock");
    }

    @Test
    void aHigherTokenOfAnotherLockIsRefusedNamingBothAndChangesNothing() throws SQLException {
        writeUnder("orders", "orders", 5, "a");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            Tables.insert(c, data, "written-before-guard", 9);
            Throwable t = catchThrowable(() -> fence.guard(c, "orders", "billing", 9));
            assertThat(t)
                    .isInstanceOfSatisfying(FenceLockMismatchException.class, e -> {
                        assertThat(e.resource()).isEqualTo("orders");
                        assertThat(e.lock()).isEqualTo("billing");
                        assertThat(e.fenceLock()).isEqualTo("orders");
                    })
                    .hasMessageContaining("under lock 'billing'")
                    .hasMessageContaining("fenced by lock 'orders'")
                    .hasMessageContaining("moveResource");
            c.commit(); // the guard rolled back first: nothing to commit
        }
        assertThat(rows()).isEqualTo(1);
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(5);
        assertThat(Tables.storedLock(ds, fence, "orders")).hasValue("orders");
        writeUnder("orders", "orders", 5, "the-real-holder-goes-on");
        assertThat(rows()).isEqualTo(2);
    }

    @Test
    void anEqualOrLowerTokenOfAnotherLockIsRefusedAsTheWrongLockNotAsStale() throws SQLException {
        writeUnder("orders", "orders", 5, "a");
        for (long token : new long[] {5, 3}) {
            assertThatThrownBy(() -> writeUnder("billing", "orders", token, "b" + token))
                    .isInstanceOf(FenceLockMismatchException.class)
                    .isNotInstanceOf(StaleTokenException.class);
        }
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void aGuardOfAnotherLockRacingAFirstWriteIsRefusedOnceItCommits() throws Exception {
        // Neither sees a committed row; ours waits for, or conflicts with, the first one's insert.
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            fence.guard(holder, "orders", "orders", 6); // inserts the row, holds it until it ends
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Throwable> other =
                        pool.submit(() -> catchThrowable(() -> writeUnder("billing", "orders", 9, "x")));
                awaitBlockedGuard();
                Tables.insert(holder, data, "holder", 6);
                holder.commit();
                assertThat(other.get(30, TimeUnit.SECONDS))
                        .isInstanceOfSatisfying(
                                FenceLockMismatchException.class,
                                e -> assertThat(e.fenceLock()).isEqualTo("orders"));
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(rows()).isEqualTo(1);
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(6);
        assertThat(Tables.storedLock(ds, fence, "orders")).hasValue("orders");
    }

    @Test
    void aGuardOfAnotherLockIsRefusedAtOnceWhileTheHolderHoldsTheRow() throws SQLException {
        // A committed row's lock changes only by a move, so the refusal is final without waiting.
        writeUnder("orders", "orders", 5, "a");
        try (Connection holder = ds.getConnection()) {
            holder.setAutoCommit(false);
            fence.guard(holder, "orders", "orders", 6); // raises the row, holds it until it ends
            assertThatThrownBy(() -> writeUnder("billing", "orders", 9, "x"))
                    .isInstanceOf(FenceLockMismatchException.class);
            Tables.insert(holder, data, "holder", 6);
            holder.commit();
        }
        assertThat(rows()).isEqualTo(2);
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(6);
    }

    @Test
    void aResourceMovedOnPurposeBelongsToTheNewLockAndKeepsItsMark() throws SQLException {
        writeUnder("orders", "orders", 5, "a");
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            fence.moveResource(c, "orders", "orders", "billing");
            c.commit();
        }
        assertThat(Tables.storedLock(ds, fence, "orders")).hasValue("billing");
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(5);
        assertThatThrownBy(() -> writeUnder("orders", "orders", 6, "old-lock"))
                .isInstanceOfSatisfying(
                        FenceLockMismatchException.class,
                        e -> assertThat(e.fenceLock()).isEqualTo("billing"));
        // A billing grant older than the last accepted token is refused until billing grants again.
        assertThatThrownBy(() -> writeUnder("billing", "orders", 4, "billing-4"))
                .isInstanceOfSatisfying(
                        StaleTokenException.class,
                        e -> assertThat(e.currentToken()).isEqualTo(5));
        writeUnder("billing", "orders", 9, "billing-9");
        assertThat(rows()).isEqualTo(2); // "a" and "billing-9"
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(9);
    }

    @Test
    void aMoveFromAnotherLockThanTheOwnerIsRefusedAndChangesNothing() throws SQLException {
        writeUnder("orders", "orders", 5, "a");
        try (Connection c = ds.getConnection()) {
            assertThatThrownBy(() -> fence.moveResource(c, "orders", "billing", "payroll"))
                    .isInstanceOfSatisfying(FenceLockMismatchException.class, e -> {
                        assertThat(e.lock()).isEqualTo("billing");
                        assertThat(e.fenceLock()).isEqualTo("orders");
                    });
            assertThatThrownBy(() -> fence.moveResource(c, "never-written", "orders", "billing"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no fence row");
        }
        assertThat(Tables.storedLock(ds, fence, "orders")).hasValue("orders");
        assertThat(Tables.storedToken(ds, fence, "never-written")).isEmpty();
    }

    @Test
    void aTableOfAnEarlierReleaseIsRefusedNamingItsUpgrade() throws SQLException {
        JdbcFence old = olderReleasesTable();
        Throwable t = catchThrowable(() -> writeUnder(old, "orders", "orders", 8, "a"));
        assertThat(t)
                .isInstanceOf(FenceSqlException.class)
                .hasMessageContaining("has no lock_name column")
                .hasMessageContaining("createTable")
                .hasMessageContaining(old.upgradeDdl());
        assertThat(rows()).isZero();
        assertThat(Tables.storedToken(ds, old, "orders")).hasValue(7);
    }

    @Test
    void createTableUpgradesATableOfAnEarlierReleaseAndItsRowsGoToTheNextGuardsLock() throws SQLException {
        JdbcFence old = olderReleasesTable();
        try (Connection c = ds.getConnection()) {
            old.createTable(c);
            old.createTable(c); // idempotent: the column is found, nothing altered
        }
        assertThat(Tables.storedToken(ds, old, "orders")).hasValue(7);
        assertThat(Tables.storedLock(ds, old, "orders")).isEmpty(); // no lock recorded yet
        assertThatThrownBy(() -> writeUnder(old, "orders", "orders", 6, "stale"))
                .isInstanceOf(StaleTokenException.class); // the mark still holds
        assertThat(Tables.storedLock(ds, old, "orders")).isEmpty();
        writeUnder(old, "orders", "orders", 7, "claims");
        assertThat(Tables.storedLock(ds, old, "orders")).hasValue("orders");
        assertThatThrownBy(() -> writeUnder(old, "billing", "orders", 9, "other"))
                .isInstanceOf(FenceLockMismatchException.class);
        assertThat(rows()).isEqualTo(1);
    }

    /** A fence table as tenure-jdbc made it before the lock column, with one row. */
    private JdbcFence olderReleasesTable() throws SQLException {
        JdbcFence old =
                JdbcFence.builder().trustTokens().table(Tables.fresh("fence")).build();
        Tables.execute(
                ds,
                "CREATE TABLE " + old.table()
                        + " (resource VARCHAR(512) PRIMARY KEY, token BIGINT NOT NULL, updated_at TIMESTAMP)");
        Tables.execute(ds, "INSERT INTO " + old.table() + " (resource, token) VALUES ('orders', 7)");
        return old;
    }

    private void writeUnder(String lock, String resource, long token, String id) {
        writeUnder(fence, lock, resource, token, id);
    }

    private void writeUnder(JdbcFence f, String lock, String resource, long token, String id) {
        f.write(ds, resource, lock, token, c -> Tables.insert(c, data, id, token));
    }

    /** Until some session waits on a lock: the other guard reached the locked fence row. */
    private void awaitBlockedGuard() throws Exception {
        try (Connection probe = ds.getConnection()) {
            Await.atMost(BLOCKED_WITHIN)
                    .every(Duration.ofMillis(5))
                    .until("a guard waits for the fence row's lock", () -> db.insertOrLockWaiters(probe) > 0);
        }
    }
}
