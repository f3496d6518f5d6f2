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
 * Failure mode 1. A acquires and sends its first write, which the network holds (a delaying
 * proxy between A and storage); A is killed with SIGKILL while the write is in flight. B is
 * waiting. The naive lock frees only at its TTL, and A's write lands after B's: a dead holder
 * overwrites the live one. Tenure ends A's session when its connection closes, B is granted at
 * once, and storage refuses A's late write (its token is no longer current).
 */
final class HolderCrash implements Scenario {
    @Override
    public String name() {
        return "holder-crash";
    }

    @Override
    public String summary() {
        return "SIGKILL of the holder right after acquiring, its first write still in flight to storage";
    }

    @Override
    public void run(ArmRun r) throws Exception {
        LabEnv env = r.env();
        long ttl = env.ms(8000);
        List<String> locks = r.lockService(1, 0);
        FaultProxy toStore = r.proxy("A-store", r.store().endpoint());
        Proc a = r.worker(
                "A",
                locks,
                opts(
                        "--ttl-ms",
                        ttl,
                        "--writes",
                        3,
                        "--interval-ms",
                        env.ms(1000),
                        "--pause-after-acquire",
                        "--store",
                        toStore.endpoint()));
        r.awaitPoint(a, "after-acquire");
        r.worker("B", locks, opts("--ttl-ms", ttl, "--writes", 6, "--interval-ms", env.ms(1000)));
        r.await("B", Kind.INVOKE, Op.ACQUIRE);
        Steps.sleepMs(env.ms(2000)); // B is queued (Tenure) or polling (naive)

        Duration delay = Duration.ofMillis(ttl * 3 / 2);
        toStore.delay(delay);
        a.send("go");
        r.await("A", Kind.INVOKE, Op.WRITE);
        while (toStore.bytesUp() == 0) {
            Steps.sleepMs(5); // until the write has left A: it is in flight, not unsent
        }
        long fault = r.fault("SIGKILL A, its write 1 in flight to storage (delayed " + delay.toMillis() + " ms)");
        a.kill9();
        Event grant = r.await("B", Kind.OK, Op.ACQUIRE);
        r.takeover(fault, grant);
        r.awaitWorkers();
        r.awaitStoreDecision("A");
    }
}
