package dev.tenure.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.StaleTokenException;
import dev.tenure.testkit.Pause;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many writers, few resources, tokens handed out by a fake Tenure (one global counter) and held
 * past their time: each writer keeps using the token it was granted until it "takes over" again, so
 * most of its writes race a newer holder. Each accepted write is one transaction: guard, insert a
 * log row, commit. Then the log must show that the fence did its job.
 *
 * <p>Why the log's {@code seq} is the commit order per resource: the log row is inserted after the
 * guard, while the transaction holds the resource's fence row lock, and that lock is released only
 * at commit. The next guarded transaction of the resource gets its {@code seq} after it acquires
 * the lock, hence after the previous one committed. (Across resources {@code seq} says nothing.)
 */
abstract class ConcurrencyContract extends DatabaseTest {
    private static final int WRITERS = 16;
    private static final int RESOURCES = 4;
    private static final int TRANSACTIONS_PER_WRITER = 150;
    /** Chance that a writer is granted a new token before a write (making every other stale). */
    private static final double TAKEOVER_CHANCE = 0.2;
    /** Chance that a writer holds the fence row a while, so that others queue up behind it. */
    private static final double LINGER_CHANCE = 0.1;

    record Attempt(int writer, int attempt, String resource, long token, long highestAccepted) {
        String id() {
            return writer + "/" + attempt;
        }
    }

    record Outcomes(Queue<Attempt> committed, Queue<Attempt> rejected, Queue<Throwable> failed) {
        Outcomes() {
            this(new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>(), new ConcurrentLinkedQueue<>());
        }
    }

    @Test
    void staleWritersNeverCommitAndEveryAcknowledgedWriteLands() throws Exception {
        long seed = Long.getLong("tenure.test.seed", System.nanoTime());
        String log = Tables.fresh("log");
        Tables.execute(
                ds,
                "CREATE TABLE " + log + " (seq " + db.identityColumn() + ", resource VARCHAR(64) NOT NULL,"
                        + " token BIGINT NOT NULL, writer INT NOT NULL, attempt INT NOT NULL)");
        AtomicLong grants = new AtomicLong(); // the fake Tenure: tokens strictly increasing, globally
        Outcomes outcomes = new Outcomes();
        long startNanos = System.nanoTime();
        runWriters(seed, log, grants, outcomes);
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

        System.out.printf(
                "[%s] fence concurrency: %d writers x %d transactions on %d resources in %d ms: %d committed,"
                        + " %d stale rejected, %d failed (seed %d, -Dtenure.test.seed to replay the choices)%n",
                db.name(),
                WRITERS,
                TRANSACTIONS_PER_WRITER,
                RESOURCES,
                elapsedMs,
                outcomes.committed().size(),
                outcomes.rejected().size(),
                outcomes.failed().size(),
                seed);
        assertThat(outcomes.failed()).as("database failures (seed %d)", seed).isEmpty();
        assertThat(outcomes.rejected()).as("the run must race stale writers").isNotEmpty();
        checkLog(log, outcomes, seed);
    }

    private void runWriters(long seed, String log, AtomicLong grants, Outcomes outcomes) throws Exception {
        CyclicBarrier start = new CyclicBarrier(WRITERS);
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                writers.add(pool.submit(() -> {
                    start.await();
                    writer(writer, new Random(seed + writer), log, grants, outcomes);
                    return null;
                }));
            }
            for (Future<?> f : writers) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** One writer on its own connection (as from a pool): guard, insert, commit, many times. */
    private void writer(int writer, Random rnd, String log, AtomicLong grants, Outcomes outcomes) throws Exception {
        long[] held = new long[RESOURCES];
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            for (int attempt = 0; attempt < TRANSACTIONS_PER_WRITER; attempt++) {
                int r = rnd.nextInt(RESOURCES);
                if (held[r] == 0 || rnd.nextDouble() < TAKEOVER_CHANCE) {
                    held[r] = grants.incrementAndGet();
                }
                Attempt a = new Attempt(writer, attempt, "resource-" + r, held[r], 0);
                try {
                    fence.guard(c, a.resource(), a.token());
                    if (rnd.nextDouble() < LINGER_CHANCE) {
                        Pause.forMillis(1); // holding the fence row: writers of this resource queue behind
                    }
                    appendLog(c, log, a);
                    c.commit();
                    outcomes.committed().add(a);
                } catch (StaleTokenException e) {
                    outcomes.rejected().add(new Attempt(writer, attempt, a.resource(), a.token(), e.currentToken()));
                } catch (FenceSqlException | SQLException e) {
                    c.rollback();
                    outcomes.failed().add(e);
                }
            }
        }
    }

    private static void appendLog(Connection c, String log, Attempt a) throws SQLException {
        try (PreparedStatement s =
                c.prepareStatement("INSERT INTO " + log + " (resource, token, writer, attempt) VALUES (?, ?, ?, ?)")) {
            s.setString(1, a.resource());
            s.setLong(2, a.token());
            s.setInt(3, a.writer());
            s.setInt(4, a.attempt());
            s.executeUpdate();
        }
    }

    /**
     * Per resource, in commit order, tokens never go down; the log holds exactly the acknowledged
     * writes (so no rejected one); every rejection names a token some committed write carried; the
     * fence's mark is the highest committed token.
     */
    private void checkLog(String log, Outcomes outcomes, long seed) throws SQLException {
        Map<String, Long> lastToken = new HashMap<>();
        Set<String> landed = new HashSet<>();
        List<String> wentDown = new ArrayList<>();
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT seq, resource, token, writer, attempt FROM " + log + " ORDER BY seq");
                ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                String resource = rs.getString(2);
                long token = rs.getLong(3);
                Long previous = lastToken.put(resource, token);
                if (previous != null && token < previous) {
                    wentDown.add(
                            "seq " + rs.getLong(1) + " on " + resource + ": token " + token + " after " + previous);
                }
                landed.add(rs.getInt(4) + "/" + rs.getInt(5));
            }
        }
        assertThat(wentDown).as("accepted tokens went down (seed %d)", seed).isEmpty();
        Set<String> acknowledged = new HashSet<>();
        outcomes.committed().forEach(a -> acknowledged.add(a.id()));
        assertThat(landed)
                .as("landed writes = acknowledged writes (seed %d)", seed)
                .isEqualTo(acknowledged);

        Map<String, Set<Long>> committedTokens = new HashMap<>();
        outcomes.committed()
                .forEach(a -> committedTokens
                        .computeIfAbsent(a.resource(), k -> new HashSet<>())
                        .add(a.token()));
        for (Attempt rejected : outcomes.rejected()) {
            assertThat(rejected.highestAccepted()).isGreaterThan(rejected.token());
            assertThat(committedTokens.get(rejected.resource()))
                    .as("rejection of %s names a committed token", rejected)
                    .contains(rejected.highestAccepted());
        }
        for (Map.Entry<String, Long> e : lastToken.entrySet()) {
            assertThat(Tables.storedToken(ds, fence, e.getKey())).hasValue(e.getValue());
        }
    }
}
