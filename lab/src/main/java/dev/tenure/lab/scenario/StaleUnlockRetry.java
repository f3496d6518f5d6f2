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
 * Failure mode 5. A releases the lock, but the response is lost (its link drops responses only):
 * the release happened, B is granted and starts a long critical section, and A, having heard
 * nothing, retries its unlock once its link works again. The naive unlock is a blind DEL: it
 * deletes B's lock, C takes it, and B and C write at the same time. Tenure's release is
 * compare-and-delete on A's token, and a retry with the same request id returns the first
 * outcome: B keeps the lock and C waits its turn.
 */
final class StaleUnlockRetry implements Scenario {
    @Override
    public String name() {
        return "stale-unlock-retry";
    }

    @Override
    public String summary() {
        return "an unlock whose response is dropped is retried after the lock has passed on";
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
                        2,
                        "--interval-ms",
                        env.ms(500),
                        "--pause-before-release",
                        "--request-timeout-ms",
                        Math.max(250, env.ms(2000)),
                        "--release-retry-ms",
                        env.ms(20_000)));
        r.awaitPoint(a, "before-release");
        String[] holderOptions = opts("--ttl-ms", ttl, "--writes", 20, "--interval-ms", env.ms(500));
        r.worker("B", locks, holderOptions);
        r.await("B", Kind.INVOKE, Op.ACQUIRE);
        r.worker("C", locks, holderOptions);
        r.await("C", Kind.INVOKE, Op.ACQUIRE);
        Steps.sleepMs(env.ms(2000));

        long fault = r.fault("A's lock-service link drops responses; A releases");
        Steps.mode(links, FaultMode.DROP_RESPONSES);
        a.send("go");
        Event grant = r.await("B", Kind.OK, Op.ACQUIRE);
        r.takeover(fault, grant);
        Steps.sleepMs(env.ms(1000));
        Steps.mode(links, FaultMode.RESET);
        Steps.mode(links, FaultMode.PASS);
        r.heal("A's link resets, then passes again: A's unlock retry gets through");
        r.awaitWorkers();
    }
}
