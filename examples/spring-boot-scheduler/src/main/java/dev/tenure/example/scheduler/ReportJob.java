package dev.tenure.example.scheduler;

import dev.tenure.client.Lease;
import dev.tenure.jdbc.JdbcFence;
import dev.tenure.shedlock.TenureLockProvider;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The scheduled job. Every instance schedules it; ShedLock runs it on the instance whose provider
 * got the lock, and skips it (until the schedule fires again) on the others. Each run writes a
 * {@code start} row, works, and writes an {@code end} row, both through the JDBC fence with the
 * run's token: rows of two runs can never interleave, because a run's writes commit only while its
 * token is the highest the fence has accepted for {@code job-runs}.
 */
@Component
public class ReportJob {

    /** One row per start and end of a run, in commit order ({@code id}). */
    static final String DDL = "CREATE TABLE IF NOT EXISTS job_runs ("
            + "id BIGINT AUTO_INCREMENT PRIMARY KEY, instance VARCHAR(64) NOT NULL, token BIGINT NOT NULL, "
            + "event VARCHAR(8) NOT NULL, at_ms BIGINT NOT NULL)";

    /** The fenced resource: one per lock, named here after what it protects. */
    static final String RESOURCE = "job-runs";

    /** The least lease time a write must still have when it starts. */
    private static final Duration MIN_REMAINING = Duration.ofMillis(200);

    private final DataSource dataSource;
    private final JdbcFence fence;
    private final String instance;
    private final long workMs;
    private final boolean locked;

    ReportJob(
            DataSource dataSource,
            JdbcFence fence,
            @Value("${example.instance:example}") String instance,
            @Value("${example.work-ms:1500}") long workMs,
            @Value("${example.lock:true}") boolean locked) {
        this.dataSource = dataSource;
        this.fence = fence;
        this.instance = instance;
        this.workMs = workMs;
        this.locked = locked;
    }

    /**
     * One run. {@code lockAtMostFor} is the lease's maxHold: a run that overstays it loses the
     * lease, and its next fenced write is refused. An interrupt (the context closing) ends the run
     * without its end row.
     */
    @Scheduled(fixedDelayString = "${example.period-ms:500}")
    @SchedulerLock(name = "example-report", lockAtMostFor = "30s")
    public void run() {
        Optional<Lease> held = TenureLockProvider.currentLease();
        if (!locked) { // example.lock=false, for the tests only: no lease, no fence
            long run = System.currentTimeMillis();
            recordUnlocked("start", run);
            sleepOrInterrupted();
            recordUnlocked("end", run);
            return;
        }
        Lease lease = held.orElseThrow(() -> new IllegalStateException("the job runs under its ShedLock lock"));
        record("start", lease);
        try {
            Thread.sleep(workMs); // the work
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.out.println("run interrupted instance=" + instance + " token=" + lease.token());
            return;
        }
        record("end", lease);
    }

    private void sleepOrInterrupted() {
        try {
            Thread.sleep(workMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * A row written without a fence, what the job would do without its lock; the run's start time
     * stands in for its token, so that the rows read as a locked run's do.
     */
    private void recordUnlocked(String event, long run) {
        try (java.sql.Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "INSERT INTO job_runs (instance, token, event, at_ms) VALUES (?, ?, ?, ?)")) {
            s.setString(1, instance);
            s.setLong(2, run);
            s.setString(3, event);
            s.setLong(4, System.currentTimeMillis());
            s.executeUpdate();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        System.out.println("run " + event + " instance=" + instance + " unlocked");
    }

    private void record(String event, Lease lease) {
        fence.write(dataSource, RESOURCE, lease, MIN_REMAINING, c -> {
            try (PreparedStatement s =
                    c.prepareStatement("INSERT INTO job_runs (instance, token, event, at_ms) VALUES (?, ?, ?, ?)")) {
                s.setString(1, instance);
                s.setLong(2, lease.token());
                s.setString(3, event);
                s.setLong(4, System.currentTimeMillis());
                s.executeUpdate();
            }
        });
        System.out.println("run " + event + " instance=" + instance + " token=" + lease.token());
    }
}
