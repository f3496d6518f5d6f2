package dev.tenure.lab.scenario;

import static dev.tenure.lab.scenario.Steps.opts;

import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.process.Proc;
import dev.tenure.lab.store.Backend;
import dev.tenure.lab.store.JdbcBackend;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Failure mode 3. A checks that it still holds the lock (naive: GET; Tenure: {@code fence()}),
 * then stops dead for 12 s (SIGSTOP, as a long GC pause) against an 8 s TTL, exactly between the
 * check and its write; the pause lasts at least until B, granted meanwhile, has written. B gets the lock and writes; A resumes and writes what it had decided to
 * write. The naive store takes it. Tenure's arm writes to a SQL table fenced by {@code JdbcFence}
 * (H2): A's token is lower than B's, and the transaction is refused.
 */
final class GcPause implements Scenario {
    @Override
    public String name() {
        return "gc-pause";
    }

    @Override
    public String summary() {
        return "12 s SIGSTOP against an 8 s TTL, between the holder's check and its write";
    }

    @Override
    public Backend tenureStore(ArmRun run) throws IOException, InterruptedException {
        return new JdbcBackend(run.dir(), String.join(",", run.env().nodeEndpoints()), Duration.ofSeconds(5));
    }

    @Override
    public void run(ArmRun r) throws Exception {
        LabEnv env = r.env();
        long ttl = env.ms(8000);
        long pause = env.ms(12_000);
        List<String> locks = r.lockService(1, 0);
        Proc a = r.worker(
                "A",
                locks,
                opts(
                        "--ttl-ms",
                        ttl,
                        "--writes",
                        4,
                        "--interval-ms",
                        env.ms(1000),
                        "--check-each-write",
                        "--pause-before-write",
                        2,
                        "--fence-min-ms",
                        env.ms(500)));
        r.await("A", Kind.OK, Op.ACQUIRE);
        r.worker("B", locks, opts("--ttl-ms", ttl, "--writes", 10, "--interval-ms", env.ms(500)));
        r.await("B", Kind.INVOKE, Op.ACQUIRE);
        r.awaitPoint(a, "before-write");

        long fault = r.fault("SIGSTOP A for " + pause + " ms (TTL " + ttl + " ms), between its check and write 2");
        a.signal("STOP");
        a.send("go"); // read once it runs again: the write it had already decided on
        Steps.sleepMs(pause);
        // The pause is over once it also covers the new holder's first write: that is the case the
        // scenario is about (on a loaded machine B can be slow to write after its grant).
        r.awaitWrite("B", 1);
        a.signal("CONT");
        r.heal("SIGCONT A");
        Event grant = r.await("B", Kind.OK, Op.ACQUIRE);
        r.takeover(fault, grant);
        r.awaitWorkers();
    }
}
