package dev.tenure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.tenure.client.StaleTokenException;
import dev.tenure.testkit.Await;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * What {@link JdbcFence#guard} promises, on one database (subclasses pick it).
 */
abstract class GuardContract extends DatabaseTest {
    private static final Duration BLOCKED_WITHIN = Duration.ofSeconds(10);

    @Test
    void firstWriteInsertsTheResourceRow() throws SQLException {
        write("orders", 5, "a");
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(5);
        assertThat(rows()).isEqualTo(1);
    }

    @Test
    void equalTokenIsAcceptedInLaterTransactions() throws SQLException {
        write("orders", 5, "a");
        write("orders", 5, "b");
        write("orders", 5, "c");
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(5);
        assertThat(rows()).isEqualTo(3);
    }

    @Test
    void higherTokenIsAcceptedAndRaisesTheMark() throws SQLException {
        write("orders", 5, "a");
        write("orders", 9, "b");
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(9);
    }

    @Test
    void lowerTokenIsRejectedNamingTheHighestAccepted() throws SQLException {
        write("orders", 7, "a");
        Throwable t = catchThrowable(() -> write("orders", 5, "b"));
        assertThat(t).isInstanceOf(StaleTokenException.class).hasMessageContaining("token 5");
        StaleTokenException rejected = (StaleTokenException) t;
        assertThat(rejected.resource()).isEqualTo("orders");
        assertThat(rejected.token()).isEqualTo(5);
        assertThat(rejected.currentToken()).isEqualTo(7);
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(7);
    }

    @Test
    void resourcesAreFencedIndependently() throws SQLException {
        write("orders", 9, "a");
        write("invoices", 3, "b");
        assertThat(Tables.storedToken(ds, fence, "invoices")).hasValue(3);
    }

    @Test
    void nothingOfARejectedTransactionLands() throws SQLException {
        write("orders", 7, "a");
        // A caller that writes before guarding, ignores the rejection and commits anyway: the
        // guard rolled back before throwing, so the commit has nothing to commit.
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            Tables.insert(c, data, "written-before-guard", 5);
            assertThatThrownBy(() -> fence.guard(c, "orders", 5)).isInstanceOf(StaleTokenException.class);
            c.commit();
        }
        // The convenience path never runs the work of a rejected transaction.
        AtomicBoolean ran = new AtomicBoolean();
        assertThatThrownBy(() -> fence.write(ds, "orders", "orders", 6, c -> ran.set(true)))
                .isInstanceOf(StaleTokenException.class);
        assertThat(ran).isFalse();
        assertThat(rows()).isEqualTo(1);
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(7);
    }

    @Test
    void failedWorkRollsBackTheWriteAndTheMark() throws SQLException {
        write("orders", 5, "a");
        Throwable t = catchThrowable(() -> fence.write(ds, "orders", "orders", 8, c -> {
            Tables.insert(c, data, "b", 8);
            Tables.insert(c, data, "b", 8); // duplicate key
        }));
        assertThat(t).isInstanceOf(FenceSqlException.class);
        assertThat(((FenceSqlException) t).sqlState()).isEqualTo("23505");
        assertThat(rows()).isEqualTo(1);
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(5);
    }

    @Test
    void refusesAConnectionWithoutATransaction() throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> fence.guard(c, "orders", 5))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("autocommit is on");
        }
        assertThat(Tables.storedToken(ds, fence, "orders")).isEmpty();
    }

    @Test
    void lowerWriterBlockedBehindAHigherOneFailsWhenItCommits() throws Exception {
        write("orders", 5, "a");
        try (Connection newer = ds.getConnection()) {
            newer.setAutoCommit(false);
            fence.guard(newer, "orders", 10); // holds the fence row until it ends
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                // 7 beats the committed 5: only the row lock can stop it, and the recheck after it.
                Future<Throwable> older = pool.submit(() -> catchThrowable(() -> write("orders", 7, "older")));
                awaitBlockedGuard();
                Tables.insert(newer, data, "newer", 10);
                newer.commit();
                Throwable t = older.get(30, TimeUnit.SECONDS);
                assertThat(t).isInstanceOf(StaleTokenException.class);
                assertThat(((StaleTokenException) t).currentToken()).isEqualTo(10);
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(rows()).isEqualTo(2); // "a" and "newer"
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(10);
    }

    @Test
    void lowerWriterBlockedBehindAHigherOneThatRollsBackGoesThrough() throws Exception {
        write("orders", 5, "a");
        try (Connection newer = ds.getConnection()) {
            newer.setAutoCommit(false);
            fence.guard(newer, "orders", 10);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Throwable> older = pool.submit(() -> catchThrowable(() -> write("orders", 7, "older")));
                awaitBlockedGuard();
                newer.rollback();
                assertThat(older.get(30, TimeUnit.SECONDS)).isNull();
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(Tables.storedToken(ds, fence, "orders")).hasValue(7);
    }

    @Test
    void concurrentFirstWritesOfOneResourceAllSettle() throws Exception {
        int writers = 8;
        CyclicBarrier start = new CyclicBarrier(writers);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<Throwable>> outcomes = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                String id = "w" + i;
                outcomes.add(pool.submit(() -> {
                    start.await();
                    return catchThrowable(() -> write("fresh", 3, id)); // equal tokens: all must pass
                }));
            }
            for (Future<Throwable> f : outcomes) {
                assertThat(f.get(30, TimeUnit.SECONDS)).isNull();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(rows()).isEqualTo(writers);
        assertThat(Tables.storedToken(ds, fence, "fresh")).hasValue(3);
    }

    @Test
    void sameHolderWritesThroughTheStoreSpi() throws SQLException {
        JdbcFencedStore store = new JdbcFencedStore(ds, fence);
        store.checkAndWrite("orders", "orders-lock", 4, c -> Tables.insert(c, data, "a", 4));
        store.checkAndWrite("orders", "orders-lock", 4, c -> Tables.insert(c, data, "b", 4));
        store.checkAndWrite("orders", "orders-lock", 6, c -> Tables.insert(c, data, "c", 6));
        assertThatThrownBy(() -> store.checkAndWrite("orders", "orders-lock", 4, c -> Tables.insert(c, data, "d", 4)))
                .isInstanceOfSatisfying(
                        StaleTokenException.class,
                        e -> assertThat(e.currentToken()).isEqualTo(6));
        assertThat(rows()).isEqualTo(3);
    }

    /** Until some session waits on a lock: the other guard reached the locked fence row. */
    private void awaitBlockedGuard() throws Exception {
        try (Connection probe = ds.getConnection()) {
            Await.atMost(BLOCKED_WITHIN)
                    .every(Duration.ofMillis(5))
                    .until("a guard waits for the fence row's lock", () -> db.lockWaiters(probe) > 0);
        }
    }
}
