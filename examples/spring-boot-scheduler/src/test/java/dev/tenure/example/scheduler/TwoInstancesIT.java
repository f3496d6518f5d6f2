package dev.tenure.example.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.process.ChildProcess;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.process.RealNode;
import dev.tenure.testkit.Await;
import dev.tenure.testkit.TimeScale;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The example as it runs in production: a real node, an H2 server, and instances of the example's
 * boot jar in JVMs of their own. The job's rows in the shared table must show runs that never
 * overlapped, with increasing tokens, through a crash (SIGKILL: the lock passes on after the
 * disconnect grace) and a clean shutdown (SIGTERM: the run in progress finishes, and the lock
 * passes on at once).
 */
class TwoInstancesIT {

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    /** Long enough to tell a crash's hand-over (which waits for it) from a clean one (which does not). */
    private static final Duration GRACE = Duration.ofSeconds(3);

    private static final long PERIOD_MS = 300;
    private static final long WORK_MS = 2000;

    private final List<Instance> instances = new ArrayList<>();
    private Path dbDir;
    private Server h2;
    private String url;

    /** One example JVM and the lines it printed. */
    private record Instance(String name, ChildProcess process, List<String> lines) {}

    /** One row of the job's table. */
    private record Row(long id, String instance, long token, String event, long atMs) {}

    @BeforeEach
    void database() throws Exception {
        dbDir = Files.createTempDirectory("tenure-example-db-");
        int port = LoopbackPorts.freeTcpPort();
        h2 = Server.createTcpServer("-tcpPort", Integer.toString(port), "-baseDir", dbDir.toString(), "-ifNotExists")
                .start();
        url = "jdbc:h2:tcp://127.0.0.1:" + port + "/runs";
    }

    @AfterEach
    void stop() throws Exception {
        for (Instance i : instances) {
            i.process().close();
        }
        h2.stop();
        Dirs.deleteTree(dbDir);
    }

    @Test
    void runsNeverOverlapAndTheLockPassesOnAfterACrashAndAtOnceOnShutdown() throws Exception {
        Instance a = start("a");
        awaitLine(a, "run start instance=a");
        start("b");
        Await.atMost(Duration.ofSeconds(90))
                .failureDetails(this::details)
                .until(
                        "both instances ran the job",
                        () -> rows().stream().map(Row::instance).distinct().count() == 2);

        HandOver clean = handOver(this::terminate);
        Instance c = start("c");
        awaitLine(c, "Started SchedulerExample");
        HandOver crash = handOver(i -> i.process().kill9());
        List<Row> rows = rows();

        // A clean shutdown lets the run in progress finish (Spring waits for its scheduled task),
        // then the context's close releases the lock: the next run starts within one period.
        long cleanGapMs =
                clean.next().atMs() - endOf(rows, clean.ended()).orElseThrow().atMs();
        // A crash ends the run mid-way and waits for the grace: the node cannot tell a dead holder
        // from a reset connection before it. The next firing and a loaded machine add to it.
        assertThat(endOf(rows, crash.ended()))
                .as(() -> "the killed run's end row; " + details())
                .isEmpty();
        long crashMs = crash.next().atMs() - crash.signalledAtMs();
        System.out.printf(
                "hand-over after SIGTERM: %d ms after the signal, %d ms after the last run's end;"
                        + " after SIGKILL: %d ms (disconnect grace %d ms, period %d ms, run %d ms)%n",
                clean.next().atMs() - clean.signalledAtMs(), cleanGapMs, crashMs, GRACE.toMillis(), PERIOD_MS, WORK_MS);
        assertThat(crashMs)
                .as(() -> "hand-over after SIGKILL, ms; " + details())
                .isBetween(GRACE.toMillis() - 200, GRACE.toMillis() + PERIOD_MS + scaledSlackMs());
        assertThat(cleanGapMs)
                .as(() -> "hand-over after SIGTERM, ms after the last run's end; " + details())
                .isLessThan(GRACE.toMillis() - 200);
        assertRunsNeverOverlapped(rows);
    }

    /**
     * The check above can fail: with the lock off (example.lock=false, a setting for this test
     * only) both instances run every firing, and the check catches their runs interleaved: mostly
     * a run ending inside another ("end of"); when the two instances' runs start within the same
     * few milliseconds, a start committed after a later-timed one ("token of", "start of"), or one run inside the
     * other ("the run ... ends" with none open).
     */
    @Test
    void withTheLockOffTheCheckSeesRunsOverlap() throws Exception {
        start("a", "--example.lock=false");
        start("b", "--example.lock=false");
        Await.atMost(Duration.ofSeconds(90))
                .failureDetails(this::details)
                .until(
                        "both instances ran the job",
                        () -> rows().stream()
                                        .filter(r -> r.event().equals("end"))
                                        .map(Row::instance)
                                        .distinct()
                                        .count()
                                == 2);
        List<Row> rows = rows();
        assertThatThrownBy(() -> assertRunsNeverOverlapped(rows))
                .as("rows %s", rows)
                .isInstanceOf(AssertionError.class)
                .hasMessageMatching("(?s).*\\[((end|token|start) of|the run) Row.*");
    }

    /** How a test ends the instance that runs the job. */
    @FunctionalInterface
    private interface Ending {
        void end(Instance running) throws Exception;
    }

    /** A run ended by a signal at {@code signalledAtMs}, and the next run, of another instance. */
    private record HandOver(Row ended, long signalledAtMs, Row next) {}

    /** Ends the instance that is running the job, mid-run, and returns when the next run started. */
    private HandOver handOver(Ending ending) throws Exception {
        Row running = Await.atMost(Duration.ofSeconds(60))
                .failureDetails(this::details)
                .until(
                        "a run in progress",
                        () -> last(rows()),
                        r -> r.isPresent()
                                && r.get().event().equals("start")
                                && System.currentTimeMillis() - r.get().atMs() < WORK_MS / 2)
                .orElseThrow();
        Instance holder = instances.stream()
                .filter(i -> i.name().equals(running.instance()))
                .findFirst()
                .orElseThrow();
        long endedAt = System.currentTimeMillis();
        ending.end(holder);
        Row next = Await.atMost(Duration.ofSeconds(60))
                .failureDetails(this::details)
                .until(
                        "another instance's run after " + holder.name() + "'s end",
                        () -> rows().stream()
                                .filter(r -> r.event().equals("start") && r.token() > running.token())
                                .findFirst(),
                        Optional::isPresent)
                .orElseThrow();
        assertThat(next.instance())
                .as(() -> "the instance of the next run after " + holder.name() + "'s; " + details())
                .isNotEqualTo(holder.name());
        return new HandOver(running, endedAt, next);
    }

    private static Optional<Row> endOf(List<Row> rows, Row start) {
        return rows.stream()
                .filter(r -> r.token() == start.token() && r.event().equals("end"))
                .findFirst();
    }

    private void terminate(Instance i) throws Exception {
        i.process().signal("TERM");
        assertThat(i.process().awaitExit(TimeScale.scaled(Duration.ofSeconds(30))))
                .as(() -> i.name() + " exited within 30 s of SIGTERM; " + details())
                .isTrue();
    }

    /**
     * In commit order: a run's start is followed by its own end, or (for a run whose instance was
     * ended) by the next run's start; each run has a token above every earlier run's, and starts
     * no earlier than the previous run ended.
     */
    private static void assertRunsNeverOverlapped(List<Row> rows) {
        assertThat(rows).isNotEmpty();
        Row open = null;
        long lastToken = 0;
        long lastEndMs = 0;
        int runs = 0;
        for (Row r : rows) {
            if (r.event().equals("start")) {
                assertThat(r.token()).as("token of %s", r).isGreaterThan(lastToken);
                assertThat(r.atMs()).as("start of %s", r).isGreaterThanOrEqualTo(lastEndMs);
                lastToken = r.token();
                open = r;
                runs++;
            } else {
                assertThat(open).as("the run %s ends", r).isNotNull();
                assertThat(r.token()).as("end of %s", r).isEqualTo(open.token());
                assertThat(r.instance()).isEqualTo(open.instance());
                lastEndMs = r.atMs();
                open = null;
            }
        }
        assertThat(runs).isGreaterThanOrEqualTo(3);
    }

    private static Optional<Row> last(List<Row> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(rows.size() - 1));
    }

    private List<Row> rows() throws SQLException {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
                Statement s = c.createStatement()) {
            if (!c.getMetaData().getTables(null, null, "JOB_RUNS", null).next()) {
                return List.of();
            }
            List<Row> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT id, instance, token, event, at_ms FROM job_runs ORDER BY id")) {
                while (rs.next()) {
                    rows.add(new Row(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getLong(5)));
                }
            }
            return rows;
        }
    }

    private Instance start(String name, String... more) throws Exception {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-Xmx192m",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                System.getProperty("example.jar"),
                "--tenure.endpoints=" + NODE.endpoint(),
                "--tenure.disconnect-grace=" + GRACE.toMillis() + "ms",
                "--example.db-url=" + url,
                "--example.instance=" + name,
                "--example.period-ms=" + PERIOD_MS,
                "--example.work-ms=" + WORK_MS));
        command.addAll(List.of(more));
        ChildProcess p = ChildProcess.start("example-" + name, command, lines::add, lines::add);
        Instance i = new Instance(name, p, lines);
        instances.add(i);
        return i;
    }

    private void awaitLine(Instance i, String line) throws InterruptedException {
        Await.atMost(Duration.ofSeconds(90))
                .every(Duration.ofMillis(50))
                .failureDetails(this::details)
                .until(i.name() + " printed '" + line + "'", () -> {
                    synchronized (i.lines()) {
                        return i.lines().stream().anyMatch(l -> l.contains(line));
                    }
                });
    }

    private static long scaledSlackMs() {
        return TimeScale.scaled(Duration.ofSeconds(2)).toMillis();
    }

    private String details() {
        StringBuilder b = new StringBuilder();
        for (Instance i : instances) {
            synchronized (i.lines()) {
                b.append("\n--- ").append(i.name()).append(":\n").append(String.join("\n", i.lines()));
            }
        }
        try {
            b.append("\n--- rows:\n").append(rows());
        } catch (SQLException e) {
            b.append("\n--- rows unreadable: ").append(e);
        }
        return b.toString();
    }
}
