package dev.tenure.cli;

import dev.tenure.lab.process.Ports;
import dev.tenure.lab.scenario.ArmResult;
import dev.tenure.lab.scenario.Lab;
import dev.tenure.lab.scenario.LabEnv;
import dev.tenure.lab.scenario.RandomRun;
import dev.tenure.lab.scenario.Report;
import dev.tenure.lab.scenario.Scenario;
import dev.tenure.lab.scenario.ScenarioResult;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** `tenure lab`: the six failure modes as experiments, naive lock vs Tenure, with real faults. */
@Command(
        name = "lab",
        description = {
            "Runs failure scenarios twice, on a naive TTL lock and on a local 3-node Tenure cluster, with real",
            "processes and real faults (SIGKILL, SIGSTOP, a fault proxy), and checks each recorded history.",
            "Scenarios: holder-crash, long-work-expiry, gc-pause, partitioned-holder, stale-unlock-retry,",
            "quorum-loss, or all. Exit 0 only if every naive run broke a property and no Tenure run did.",
            "`random` runs workers against Tenure under a seeded schedule of faults (kills and pauses of",
            "nodes; partitions, resets, delays, pauses and wall-clock steps of workers; faults overlap),",
            "printed in full; exit 0 if no property broke. The same --seed, --duration and --workers",
            "replay the same schedule (clock steps only where libfaketime is installed)."
        })
final class LabCommand implements Callable<Integer> {
    /** A Tenure run broke a checked property: a safety bug. */
    static final int TENURE_VIOLATION = 6;
    /** A naive run broke nothing (the fault did not land) or an experiment could not run. */
    static final int EXPERIMENT_FAILED = 7;

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "A scenario name, or all.")
    String scenario;

    @Option(names = "--seed", description = "Seed for the choices a run makes (default: time-based, printed).")
    Long seed;

    @Option(
            names = "--scale",
            description = "Scenarios: divides every scenario time (TTLs, pauses, jobs) by K, 1.." + LabEnv.SCALE_MAX
                    + " (default: ${DEFAULT-VALUE}); random runs have fixed times and use --duration.",
            defaultValue = "4")
    int scale;

    @Option(names = "--json", description = "One JSON object per scenario on stdout; the table goes to stderr.")
    boolean json;

    @Option(names = "--dir", description = "Where histories and logs go (default: a new temporary directory).")
    Path dir;

    @Option(
            names = "--base-port",
            description = "Search for the cluster's ports from here (default: ${DEFAULT-VALUE}).",
            defaultValue = "7800")
    int basePort;

    @Option(
            names = "--duration",
            description = "random: how long faults are injected (default: ${DEFAULT-VALUE}).",
            defaultValue = "60s",
            converter = DurationConverter.class)
    Duration duration;

    @Option(
            names = "--workers",
            description = "random: worker slots contending for the lock (default: ${DEFAULT-VALUE}).",
            defaultValue = "3")
    int workers;

    @Override
    public Integer call() throws Exception {
        List<Scenario> selected = scenario.equals(RandomRun.NAME) ? List.of() : select();
        if (scale < LabEnv.SCALE_MIN || scale > LabEnv.SCALE_MAX) {
            throw new IllegalArgumentException("--scale must be in [" + LabEnv.SCALE_MIN + ", " + LabEnv.SCALE_MAX
                    + "] (times are divided by it), was " + scale);
        }
        long s = seed != null ? seed : System.currentTimeMillis() % 1_000_000;
        Path out = dir != null ? dir : Files.createTempDirectory("tenure-lab-");
        Files.createDirectories(out);
        boolean random = scenario.equals(RandomRun.NAME);
        System.err.println(
                "lab: seed " + s + (random ? "" : ", scale " + scale) + ", output in " + out.toAbsolutePath());
        List<ScenarioResult> results = new ArrayList<>();
        try (LabEnv env = new LabEnv(
                out.toAbsolutePath(),
                s,
                scale,
                SelfLauncher::javaCommand,
                SelfLauncher.classpath(),
                Ports.freeClusterBase(basePort, 3),
                System.err)) {
            Thread stop = new Thread(env::close, "lab-shutdown");
            Runtime.getRuntime().addShutdownHook(stop); // Ctrl-C or SIGTERM leaves no process behind
            if (random) {
                int code = random(env, s);
                Runtime.getRuntime().removeShutdownHook(stop);
                return code;
            }
            for (Scenario sc : selected) {
                ScenarioResult r = Lab.run(sc, env);
                results.add(r);
                System.out.println(json ? Report.json(r, s, scale) : Report.line(r));
                System.out.flush();
            }
            Runtime.getRuntime().removeShutdownHook(stop);
        }
        (json ? System.err : System.out).print("\n" + Report.table(results));
        if (results.stream().anyMatch(ScenarioResult::tenureViolated)) {
            return TENURE_VIOLATION;
        }
        return results.stream().allMatch(ScenarioResult::passed) ? ExitCodes.OK : EXPERIMENT_FAILED;
    }

    private int random(LabEnv env, long s) {
        long start = System.nanoTime();
        ArmResult r = new RandomRun(env, duration, workers).run();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (json) {
            System.out.println(Report.json(r, s, ms));
        }
        PrintStream out = json ? System.err : System.out;
        out.printf(
                "random: seed %d, %d faults, %d ops, %d stale writes rejected, %d violation(s)%n",
                s, r.faults(), r.ops(), r.rejected(), r.violations().size());
        r.violations().forEach(v -> out.println("  TENURE VIOLATION " + v));
        if (r.error() != null) {
            out.println("  could not run: " + r.error());
            return EXPERIMENT_FAILED;
        }
        if (!r.violations().isEmpty()) {
            out.printf(
                    "replay the schedule: tenure lab random --seed %d --duration %ds --workers %d%n",
                    s, duration.toSeconds(), workers);
            return TENURE_VIOLATION;
        }
        return ExitCodes.OK;
    }

    private List<Scenario> select() {
        if (scenario.equals("all")) {
            return Lab.scenarios();
        }
        return Lab.byName(scenario)
                .map(List::of)
                .orElseThrow(() -> new IllegalArgumentException("no scenario '" + scenario + "'; choose one of "
                        + Lab.scenarios().stream().map(Scenario::name).collect(Collectors.joining(", "))
                        + ", all, or random"));
    }
}
