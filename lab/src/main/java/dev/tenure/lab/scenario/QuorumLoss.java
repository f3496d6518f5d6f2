package dev.tenure.lab.scenario;

import static dev.tenure.lab.scenario.Steps.opts;

import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.process.Proc;
import java.util.ArrayList;
import java.util.List;

/**
 * Failure mode 6. A holds the lock and writes; two of the three lock-service nodes are killed
 * (SIGKILL). B then asks for the lock while the quorum is gone. The naive lock is a primary with
 * two asynchronous replicas and clients that fail over: the surviving replica never heard of A's
 * lock, grants it to B (with A's generation), and both write. Tenure has no quorum: nothing is
 * granted, renewed or written until the nodes are back, A's lease is lost at its horizon, and B
 * is granted only after the restart.
 */
final class QuorumLoss implements Scenario {
    /** How late the naive primary ships a change to its replicas (asynchronous replication). */
    private static final long NAIVE_LAG_MS = 1000;

    @Override
    public String name() {
        return "quorum-loss";
    }

    @Override
    public String summary() {
        return "two of three lock-service nodes die (SIGKILL); correctness workloads must fail closed";
    }

    @Override
    public void run(ArmRun r) throws Exception {
        LabEnv env = r.env();
        long ttl = env.ms(8000);
        List<String> locks = r.lockService(3, NAIVE_LAG_MS);
        r.worker(
                "A",
                locks,
                opts(
                        "--ttl-ms",
                        ttl,
                        "--writes",
                        40,
                        "--interval-ms",
                        env.ms(500),
                        "--fence-min-ms",
                        env.ms(500),
                        "--release-retry-ms",
                        env.ms(2000)));
        Proc b = r.worker(
                "B",
                locks,
                opts(
                        "--ttl-ms",
                        ttl,
                        "--writes",
                        3,
                        "--interval-ms",
                        env.ms(500),
                        "--pause-before-acquire",
                        "--acquire-wait-ms",
                        120_000));
        r.awaitPoint(b, "before-acquire");
        r.await("A", Kind.OK, Op.ACQUIRE);

        List<Integer> victims = victims(r);
        long fault = r.fault("SIGKILL lock-service nodes " + victims + ": no quorum");
        for (int i : victims) {
            if (r.arm() == Arm.NAIVE) {
                r.killNaiveNode(i);
            } else {
                env.killNode(i);
            }
        }
        Steps.sleepMs(300); // both are gone; what was decided before the kill may still be answered
        long start = r.history().now();
        b.send("go");
        Steps.sleepMs(Math.max(3000, 2 * ttl));
        long end = r.heal(r.arm() == Arm.NAIVE ? "outage over (naive nodes stay down)" : "restart nodes " + victims);
        r.window("quorum loss (nodes " + victims + " dead)", start, end);
        if (r.arm() == Arm.TENURE) {
            env.restartNodes();
        }
        Event grant = r.await("B", Kind.OK, Op.ACQUIRE);
        r.takeover(fault, grant);
        r.awaitWorkers();
    }

    /** Naive: the primary and one replica. Tenure: two of three, chosen by the seed. */
    private static List<Integer> victims(ArmRun r) {
        if (r.arm() == Arm.NAIVE) {
            return List.of(0, 1);
        }
        List<Integer> nodes = new ArrayList<>(List.of(0, 1, 2));
        nodes.remove(r.env().random().nextInt(3));
        return nodes;
    }
}
