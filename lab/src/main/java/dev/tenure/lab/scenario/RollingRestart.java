package dev.tenure.lab.scenario;

import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.GrantsKept;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Observation;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.history.Violation;
import dev.tenure.lab.process.Proc;
import dev.tenure.lab.store.TenureKvBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * `tenure lab rolling-restart`: each member of the 3-node cluster is stopped with SIGTERM and
 * started again on its data, one at a time, while worker slots keep contending for a lock and a
 * long holder keeps writing under one lease. The next member goes only once the restarted one
 * serves again with every member caught up. Followers go first and the leader last: the restart
 * then costs exactly one leadership change, where a leader restarted early may hand leadership to
 * a member that is restarted later, and pay for a second election.
 *
 * <p>Judged by the usual checkers (tokens, interleaving, stale writes, lost acknowledgements),
 * the service's own checks ({@link ReplicaCheck}), and {@link GrantsKept}: no holder, the long
 * one included, loses a grant it was acknowledged. The longest time between two grants across
 * the restarts is the run's figure.
 *
 * <p>Tenure only: a naive lock has no restart story to compare with (it forgets its locks), so
 * this is not one of the naive-versus-Tenure experiments that {@code lab all} runs.
 */
public final class RollingRestart {
    public static final String NAME = "rolling-restart";

    private static final int SLOTS = 3;
    private static final int NODES = 3;
    /**
     * Not scaled: the leases must outlast a member's restart and the one leader failover, whatever
     * the scale. 8 s was too short on a loaded 2-core machine: a holder's renewals went unanswered
     * for its whole horizon around the leader's restart, and it rightly declared its lease lost.
     */
    private static final long TTL_MS = 30_000;
    /** How long a stopping member may take to exit after SIGTERM before it is killed. */
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final LabEnv env;

    /**
     * What a rolling restart showed.
     *
     * @param arm the checked run
     * @param longestGrantGapMs longest time between two acknowledged grants, from the first
     *     SIGTERM to the first grant after the last member serves again; -1 if the run did not get there
     * @param restarts the members in the order they were restarted
     */
    public record Result(ArmResult arm, long longestGrantGapMs, List<Integer> restarts, long durationMs) {
        public boolean passed() {
            return arm.error() == null && arm.violations().isEmpty();
        }
    }

    public RollingRestart(LabEnv env) {
        this.env = env;
    }

    public Result run() {
        long start = System.nanoTime();
        env.progress(NAME + ": " + SLOTS + " worker slots on one lock and a long holder on another; each member"
                + " SIGTERMed and restarted in turn, followers first, the leader last");
        ArmRun run = null;
        List<Slot> slots = new ArrayList<>();
        List<Integer> restarts = new ArrayList<>();
        long gapMs = -1;
        try {
            run = new ArmRun(env, NAME, Arm.TENURE);
            run.useStore(new TenureKvBackend(String.join(",", env.nodeEndpoints()), Duration.ofSeconds(5)));
            Proc holder = run.worker("H", env.nodeEndpoints(), holderOptions(run));
            run.await("H", Kind.OK, Op.ACQUIRE);
            for (int i = 0; i < SLOTS; i++) {
                Slot s = new Slot(run, i);
                slots.add(s);
                s.start();
            }
            awaitGrantAfter(run, run.history().now());
            Steps.sleepMs(env.ms(4000)); // the load settles before the first restart
            long from = run.history().now();
            while (restarts.size() < NODES) {
                restarts.add(restartOne(run, restarts));
            }
            Event after = awaitGrantAfter(run, run.history().now());
            gapMs = GrantsKept.longestGrantGapMs(run.history().events(), from, after.nanos());
            long deferred = run.history().events().stream()
                    .filter(e -> e.process().equals("H") && e.detail().startsWith("fence deferred:"))
                    .count();
            env.progress(NAME + ": every member restarted " + restarts + "; longest gap between grants " + gapMs
                    + " ms; the long holder deferred " + deferred + " write(s) for a fence with too little time left");
            slots.forEach(Slot::finish);
            holder.send("go");
            for (Slot s : slots) {
                s.join(ArmRun.PATIENCE.toMillis());
            }
            run.awaitWorkers();
            ArmResult r = withChecks(run.finish(), run);
            env.progress(NAME + ": " + r.violations().size() + " violation(s), " + r.ops() + " ops, history in "
                    + run.dir());
            return new Result(r, gapMs, restarts, elapsedMs(start));
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            env.progress(NAME + ": could not run: " + e);
            ArmResult failed = run == null
                    ? new ArmResult(Arm.TENURE, "", List.of(), 0, 0, 0, -1, String.valueOf(e))
                    : run.failed(e);
            return new Result(failed, gapMs, restarts, elapsedMs(start));
        } finally {
            slots.forEach(Thread::interrupt);
            if (run != null) {
                run.close();
            }
        }
    }

    private String[] holderOptions(ArmRun run) {
        return Steps.opts(
                "--lock",
                run.lock() + "-held",
                "--resource",
                run.resource() + "-held",
                "--ttl-ms",
                TTL_MS,
                "--disconnect-grace-ms",
                -1,
                "--writes",
                1_000_000,
                "--interval-ms",
                env.ms(800),
                "--fence-min-ms",
                500,
                // The long holder outlasts every restart: a fence that cannot promise 500 ms just
                // then (its connection moved to another member, a slow round trip) defers a write.
                "--fence-wait-ms",
                ArmRun.PATIENCE.toMillis(),
                "--until-go");
    }

    /**
     * Restarts one member not restarted yet, a follower while any is left; returns its id once it
     * serves again, every member has caught up, the long holder has written since and a grant
     * was made since.
     */
    private int restartOne(ArmRun run, List<Integer> done) throws Exception {
        OptionalInt leader = env.leader();
        int node = -1;
        for (int i = 0; i < NODES; i++) {
            if (!done.contains(i) && (node < 0 || (leader.isPresent() && node == leader.getAsInt()))) {
                node = i;
            }
        }
        boolean isLeader = leader.isPresent() && leader.getAsInt() == node;
        run.fault("SIGTERM node " + node + (isLeader ? " (the leader)" : " (a follower)") + ", then start it again");
        env.stopNode(node, STOP_GRACE);
        env.restartNodes(); // on its own data; returns once every member serves with a leader
        long healed = run.heal("node " + node + " serves again and every member caught up");
        run.await(
                "a write of H after node " + node + " rejoined",
                e -> e.process().equals("H") && e.kind() == Kind.OK && e.op() == Op.WRITE && e.nanos() > healed);
        awaitGrantAfter(run, healed);
        Steps.sleepMs(env.ms(2000));
        return node;
    }

    private static Event awaitGrantAfter(ArmRun run, long nanos) throws InterruptedException {
        return run.await(
                "a grant to a worker slot",
                e -> e.process().startsWith("w") && e.kind() == Kind.OK && e.op() == Op.ACQUIRE && e.nanos() > nanos);
    }

    /** Adds the service's checks and {@link GrantsKept} to the history's. */
    private ArmResult withChecks(ArmResult r, ArmRun run) throws Exception {
        List<Event> events = run.history().events();
        long maxToken = events.stream()
                .filter(e -> e.kind() == Kind.OK && e.op() == Op.ACQUIRE)
                .mapToLong(Event::token)
                .max()
                .orElse(0);
        List<Violation> all = new ArrayList<>(r.violations());
        all.addAll(new GrantsKept().check(new Observation(events, List.of(), Map.of(), List.of())));
        all.addAll(ReplicaCheck.check(env.nodeLogs(), env.nodeEndpoints(), maxToken, env));
        return new ArmResult(r.arm(), r.backend(), all, r.ops(), r.faults(), r.rejected(), r.takeoverMs(), r.error());
    }

    private static long elapsedMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** One worker slot: a new worker on the contended lock each time the last one finishes. */
    private final class Slot extends Thread {
        private final ArmRun run;
        private final int index;
        private volatile boolean finishing;

        Slot(ArmRun run, int index) {
            super("lab-rolling-w" + index);
            setDaemon(true);
            this.run = run;
            this.index = index;
        }

        void finish() {
            finishing = true;
        }

        @Override
        public void run() {
            try {
                for (int n = 1; !finishing; n++) {
                    Proc p = run.worker(
                            "w" + index + "-" + n,
                            env.nodeEndpoints(),
                            Steps.opts(
                                    "--ttl-ms", TTL_MS,
                                    "--disconnect-grace-ms", -1,
                                    "--writes", 3,
                                    "--interval-ms", env.ms(400),
                                    "--fence-min-ms", 500,
                                    "--acquire-wait-ms", 60_000,
                                    "--release-retry-ms", 10_000));
                    if (!p.awaitExit(ArmRun.PATIENCE)) {
                        p.kill9();
                    }
                }
            } catch (Exception e) {
                if (!(e instanceof InterruptedException)) {
                    env.progress(NAME + ": worker slot w" + index + " stopped: " + e);
                }
            }
        }
    }
}
