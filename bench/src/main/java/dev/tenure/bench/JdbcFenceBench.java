package dev.tenure.bench;

import dev.tenure.jdbc.JdbcFence;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * What the JDBC fence costs a transaction, on an embedded PostgreSQL 17: the same transaction
 * (insert one row, commit) without and with {@code guard} first. Each thread has its own
 * connection and fences its own resource (one holder per lock: no contention on the fence row).
 * Prints p50/p99 latency and throughput for both and their ratio; asserts nothing.
 *
 * <p>Usage: {@code JdbcFenceBench [ITERATIONS_PER_THREAD] [WARMUP_PER_THREAD] [THREADS,...]}
 * (defaults 5000, 2000, "1,4").
 */
public final class JdbcFenceBench {
    private static final String DATA_TABLE = "bench_rows";

    private enum Shape {
        PLAIN,
        GUARDED
    }

    private record Run(Shape shape, int threads, long transactions, long elapsedNanos, Histogram latencyNanos) {
        double perSecond() {
            return transactions / (elapsedNanos / 1e9);
        }

        double p50Ms() {
            return latencyNanos.getValueAtPercentile(50) / 1e6;
        }

        double p99Ms() {
            return latencyNanos.getValueAtPercentile(99) / 1e6;
        }
    }

    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        String threadCounts = args.length > 2 ? args[2] : "1,4";
        // Trusted on purpose: this measures the guard's SQL alone, the steady state of a verifying
        // fence too (a verifier is asked only when a new holder first raises a resource's mark).
        JdbcFence fence = JdbcFence.builder().trustTokens().build();
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder().start()) {
            DataSource ds = pg.getPostgresDatabase();
            prepare(ds, fence);
            System.out.println("# embedded PostgreSQL " + setting(ds, "server_version") + ", fsync="
                    + setting(ds, "fsync") + ", synchronous_commit=" + setting(ds, "synchronous_commit")
                    + ", isolation=" + setting(ds, "default_transaction_isolation") + "; " + iterations
                    + " transactions per thread after " + warmup + " warm-up");
            for (String t : threadCounts.split(",", 0)) { // 0: trailing empty strings dropped
                int threads = Integer.parseInt(t.trim());
                run(ds, fence, Shape.PLAIN, threads, warmup); // warm-up, both shapes, not printed
                run(ds, fence, Shape.GUARDED, threads, warmup);
                Run plain = run(ds, fence, Shape.PLAIN, threads, iterations);
                Run guarded = run(ds, fence, Shape.GUARDED, threads, iterations);
                print(plain);
                print(guarded);
                System.out.printf(
                        "{\"threads\":%d,\"guarded_over_plain\":{\"p50\":%.2f,\"p99\":%.2f,\"throughput\":%.2f}}%n",
                        threads,
                        guarded.p50Ms() / plain.p50Ms(),
                        guarded.p99Ms() / plain.p99Ms(),
                        guarded.perSecond() / plain.perSecond());
                System.out.println("# fence table after it: " + fenceTableStats(ds, fence));
            }
        }
    }

    private static void prepare(DataSource ds, JdbcFence fence) throws SQLException {
        try (Connection c = ds.getConnection()) {
            fence.createTable(c);
            try (PreparedStatement s = c.prepareStatement("CREATE TABLE " + DATA_TABLE
                    + " (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, writer INT NOT NULL,"
                    + " token BIGINT NOT NULL, payload VARCHAR(64) NOT NULL)")) {
                s.executeUpdate();
            }
        }
    }

    private static Run run(DataSource ds, JdbcFence fence, Shape shape, int threads, int iterations) throws Exception {
        Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int writer = i;
            Thread w = new Thread(
                    () -> {
                        try (Connection c = ds.getConnection()) {
                            c.setAutoCommit(false);
                            Histogram mine = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
                            start.await();
                            writeMany(c, fence, shape, writer, iterations, mine);
                            synchronized (latency) {
                                latency.add(mine);
                            }
                        } catch (Exception e) {
                            synchronized (failures) {
                                failures.add(e);
                            }
                        }
                    },
                    "fence-bench-" + i);
            workers.add(w);
            w.start();
        }
        start.await();
        long began = System.nanoTime();
        for (Thread w : workers) {
            w.join();
        }
        long elapsed = System.nanoTime() - began;
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a bench writer failed", failures.get(0));
        }
        return new Run(shape, threads, (long) threads * iterations, elapsed, latency);
    }

    /** The measured transaction: [guard], insert one row, commit. */
    private static void writeMany(
            Connection c, JdbcFence fence, Shape shape, int writer, int iterations, Histogram latency)
            throws SQLException {
        String resource = "bench-resource-" + writer;
        long token = 1_000L + writer; // one holder per resource: always current
        try (PreparedStatement insert =
                c.prepareStatement("INSERT INTO " + DATA_TABLE + " (writer, token, payload) VALUES (?, ?, ?)")) {
            for (int i = 0; i < iterations; i++) {
                long t0 = System.nanoTime();
                if (shape == Shape.GUARDED) {
                    fence.guard(c, resource, token);
                }
                insert.setInt(1, writer);
                insert.setLong(2, token);
                insert.setString(3, "row " + i);
                insert.executeUpdate();
                c.commit();
                latency.recordValue(System.nanoTime() - t0);
            }
        }
    }

    private static void print(Run r) {
        System.out.printf(
                "{\"shape\":\"%s\",\"threads\":%d,\"transactions\":%d,\"tx_per_s\":%.0f,\"p50_ms\":%.3f,"
                        + "\"p99_ms\":%.3f,\"max_ms\":%.3f}%n",
                r.shape().name().toLowerCase(java.util.Locale.ROOT),
                r.threads(),
                r.transactions(),
                r.perSecond(),
                r.p50Ms(),
                r.p99Ms(),
                r.latencyNanos().getMaxValue() / 1e6);
    }

    /**
     * Each guard is an UPDATE of its resource's row: a new row version per transaction. Whether
     * PostgreSQL can do them as HOT updates (pruned in place, no index entry) is most of the cost.
     */
    private static String fenceTableStats(DataSource ds, JdbcFence fence) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT n_tup_upd, n_tup_hot_upd, n_dead_tup,"
                        + " pg_relation_size(relid), pg_indexes_size(relid) FROM pg_stat_user_tables"
                        + " WHERE relname = ?")) {
            s.setString(1, fence.table());
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    return "no statistics";
                }
                return "updates=" + rs.getLong(1) + " hot_updates=" + rs.getLong(2) + " dead_rows=" + rs.getLong(3)
                        + " heap_bytes=" + rs.getLong(4) + " index_bytes=" + rs.getLong(5);
            }
        }
    }

    private static String setting(DataSource ds, String name) throws SQLException {
        try (Connection c = ds.getConnection();
                PreparedStatement s = c.prepareStatement("SELECT current_setting(?)")) {
            s.setString(1, name);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }
}
