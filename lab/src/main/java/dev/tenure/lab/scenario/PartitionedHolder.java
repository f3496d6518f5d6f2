package dev.tenure.lab.scenario;

import static dev.tenure.lab.scenario.Steps.opts;

import dev.tenure.lab.fault.FaultMode;
import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.process.Proc;
import java.util.List;

/**
 * Failure mode 4. A holds the lock and writes; then every link between A and the lock service
 * goes silent (blackholed proxies: no data, no FIN, no RST), while A's link to storage stays up.
 * The naive lock expires and B takes it while A, trusting its watchdog, keeps writing. With Tenure
 * (three nodes), A cannot reach the quorum: its renewals are never acknowledged, its client
 * declares the lease lost at its horizon, and {@code fence()} stops A before B is granted.
 */
final class PartitionedHolder implements Scenario {
    @Override
    public String name() {
        return "partitioned-holder";
    }

    @Override
    public String summary() {
        return "the holder loses the lock service (blackholed links) but still reaches storage";
    }

    @Override
    public void run(ArmRun r) throws Exception {
        LabEnv env = r.env();
        long ttl = env.ms(8000);
        List<String> locks = r.lockService(1, 0);
        List<FaultProxy> links = Steps.proxies(r, "A", locks);
        Proc a = r.worker(
                "A",
                Steps.endpoints(links),
                opts(
                        "--ttl-ms",
                        ttl,
                        "--writes",
                        16,
                        "--interval-ms",
                        env.ms(1000),
                        "--fence-min-ms",
                        env.ms(500),
                        "--pause-after-acquire",
                        "--release-retry-ms",
                        env.ms(2000),
                        "--request-timeout-ms",
                        Math.max(1000, env.ms(4000))));
        r.awaitPoint(a, "after-acquire");
        r.worker("B", locks, opts("--ttl-ms", ttl, "--writes", 4, "--interval-ms", env.ms(1000)));
        r.await("B", Kind.INVOKE, Op.ACQUIRE);
        Steps.sleepMs(env.ms(2000));
        a.send("go");
        r.awaitWrite("A", 1);

        long fault = r.fault("partition: A's " + links.size()
                + " link(s) to the lock service blackholed; its link to storage stays up");
        Steps.mode(links, FaultMode.BLACKHOLE);
        Event grant = r.await("B", Kind.OK, Op.ACQUIRE);
        r.takeover(fault, grant);
        r.awaitWorkers();
    }
}
