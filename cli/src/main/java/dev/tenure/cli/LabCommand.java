package dev.tenure.cli;

import dev.tenure.lab.process.Ports;
import dev.tenure.lab.scenario.Lab;
import dev.tenure.lab.scenario.LabEnv;
import dev.tenure.lab.scenario.Report;
import dev.tenure.lab.scenario.Scenario;
import dev.tenure.lab.scenario.ScenarioResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
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
            "quorum-loss, or all. Exit 0 only if every naive run broke a property and no Tenure run did."
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
            description = "Divides every scenario time (TTLs, pauses, jobs) by K, 1.." + LabEnv.SCALE_MAX
                    + " (default: ${DEFAULT-VALUE}).",
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

    @Override
    public Integer call() throws Exception {
        List<Scenario> selected = select();
        if (scale < LabEnv.SCALE_MIN || scale > LabEnv.SCALE_MAX) {
            throw new IllegalArgumentException("--scale must be in [" + LabEnv.SCALE_MIN + ", " + LabEnv.SCALE_MAX
                    + "] (times are divided by it), was " + scale);
        }
        long s = seed != null ? seed : System.currentTimeMillis() % 1_000_000;
        Path out = dir != null ? dir : Files.createTempDirectory("tenure-lab-");
        Files.createDirectories(out);
        System.err.println("lab: seed " + s + ", scale " + scale + ", output in " + out.toAbsolutePath());
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

    private List<Scenario> select() {
        if (scenario.equals("all")) {
            return Lab.scenarios();
        }
        return Lab.byName(scenario)
                .map(List::of)
                .orElseThrow(() -> new IllegalArgumentException("no scenario '" + scenario + "'; choose one of "
                        + Lab.scenarios().stream().map(Scenario::name).collect(Collectors.joining(", "))
                        + ", or all"));
    }
}
