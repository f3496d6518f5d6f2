package dev.tenure.lab.scenario;

import static dev.tenure.lab.scenario.Steps.opts;

import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.process.Proc;
import java.time.Duration;
import java.util.List;

/**
 * Failure mode 2. A runs a 40 s job under a 20 s lease, writing every 2 s; once it started, its
 * renewals stall (its link to the lock service delays everything by twice the TTL). The naive
 * watchdog's extensions arrive too late, the key expires, B takes the lock, and A, trusting its
 * watchdog, keeps writing. Tenure's client declares the lease lost at its horizon, so A's
 * {@code fence()} refuses before B can be granted, and A stops.
 */
final class LongWorkExpiry implements Scenario {
    @Override
    public String name() {
        return "long-work-expiry";
    }

    @Override
    public String summary() {
        return "40 s job under a 20 s lease whose renewals stall (lock link delayed by 2x TTL)";
    }

    @Override
    public void run(ArmRun r) throws Exception {
        LabEnv env = r.env();
        long ttl = env.ms(20_000);
        List<String> locks = r.lockService(1, 0);
        List<FaultProxy> links = Steps.proxies(r, "A", locks);
        Proc a = r.worker(
                "A",
                Steps.endpoints(links),
                opts(
                        "--ttl-ms",
                        ttl,
                        "--writes",
                        20,
                        "--interval-ms",
                        env.ms(2000),
                        "--fence-min-ms",
                        env.ms(1000),
                        "--pause-after-acquire",
                        "--release-retry-ms",
                        env.ms(4000),
                        "--request-timeout-ms",
                        Math.max(1000, env.ms(5000))));
        r.awaitPoint(a, "after-acquire");
        r.worker("B", locks, opts("--ttl-ms", ttl, "--writes", 4, "--interval-ms", env.ms(1000)));
        r.await("B", Kind.INVOKE, Op.ACQUIRE);
        Steps.sleepMs(env.ms(2000));
        a.send("go");
        r.awaitWrite("A", 1);

        Duration stall = Duration.ofMillis(2 * ttl);
        long fault = r.fault("A's renewals stall: its lock-service link delays everything by " + stall.toMillis()
                + " ms (TTL " + ttl + " ms)");
        links.forEach(p -> p.delay(stall));
        Event grant = r.await("B", Kind.OK, Op.ACQUIRE);
        r.takeover(fault, grant);
        r.awaitWorkers();
    }
}
