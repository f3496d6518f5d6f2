package dev.tenure.lab.scenario;

import dev.tenure.lab.store.Backend;
import dev.tenure.lab.store.PlainBackend;
import java.util.List;
import java.util.Optional;

/** The six scenarios, and how one is run: naive arm first, then Tenure, each checked. */
public final class Lab {
    private Lab() {}

    /** In the order `all` runs them; quorum-loss last, as it restarts the shared cluster. */
    public static List<Scenario> scenarios() {
        return List.of(
                new HolderCrash(),
                new LongWorkExpiry(),
                new GcPause(),
                new PartitionedHolder(),
                new StaleUnlockRetry(),
                new QuorumLoss());
    }

    public static Optional<Scenario> byName(String name) {
        return scenarios().stream().filter(s -> s.name().equals(name)).findFirst();
    }

    public static ScenarioResult run(Scenario s, LabEnv env) {
        long start = System.nanoTime();
        ArmResult naive = runArm(s, env, Arm.NAIVE);
        ArmResult tenure = runArm(s, env, Arm.TENURE);
        return new ScenarioResult(s.name(), naive, tenure, (System.nanoTime() - start) / 1_000_000);
    }

    private static ArmResult runArm(Scenario s, LabEnv env, Arm arm) {
        env.progress(s.name() + " " + arm.id() + ": " + s.summary());
        ArmRun run = null;
        try {
            run = new ArmRun(env, s.name(), arm);
            Backend backend = arm == Arm.NAIVE ? new PlainBackend() : s.tenureStore(run);
            run.useStore(backend);
            s.run(run);
            ArmResult r = run.finish();
            env.progress(s.name() + " " + arm.id() + ": " + r.violations().size() + " violation(s), " + r.ops()
                    + " ops, history in " + run.dir());
            return r;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            env.progress(s.name() + " " + arm.id() + ": could not run: " + e);
            return run == null ? new ArmResult(arm, "", List.of(), 0, 0, 0, -1, String.valueOf(e)) : run.failed(e);
        } finally {
            if (run != null) {
                run.close();
            }
        }
    }
}
