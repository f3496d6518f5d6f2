package dev.tenure.cli;

import dev.tenure.lab.process.LabNetwork;
import dev.tenure.lab.process.NetNamespace;
import dev.tenure.lab.process.Ports;
import dev.tenure.lab.scenario.ArmResult;
import dev.tenure.lab.scenario.Lab;
import dev.tenure.lab.scenario.LabEnv;
import dev.tenure.lab.scenario.RandomRun;
import dev.tenure.lab.scenario.Report;
import dev.tenure.lab.scenario.RollingRestart;
import dev.tenure.lab.scenario.Scenario;
import dev.tenure.lab.scenario.ScenarioResult;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** `tenure lab`: the six failure modes as experiments, naive lock vs Tenure, with real faults. */
@Command(
        name = "lab",
        description = {
            "Runs failure scenarios on a naive TTL lock and on Tenure, and checks each recorded history.",
            "Each scenario runs twice, on a naive TTL lock and on a local 3-node Tenure cluster, with real",
            "processes and real faults (SIGKILL, SIGSTOP, a fault proxy).",
            "Scenarios: holder-crash, long-work-expiry, gc-pause, partitioned-holder, stale-unlock-retry,",
            "quorum-loss, or all. Exit 0 only if every naive run broke a property and no Tenure run did.",
            "`random` runs workers against Tenure under a seeded schedule of faults (kills, pauses and, in",
            "network namespaces, partitions of nodes; partitions, resets, delays, pauses and wall-clock",
            "steps of workers; faults overlap), printed in full; exit 0 if no property broke. The same",
            "--seed, --duration, --workers and --network replay the same schedule (clock steps only where",
            "libfaketime is installed).",
            "`rolling-restart` SIGTERMs and restarts each member of the cluster in turn (followers first,",
            "the leader last) under load and a long holder; exit 0 if no holder lost a grant and no",
            "property broke; it reports the longest gap between grants. Not part of `all`."
        })
final class LabCommand implements Callable<Integer> {
    /** A Tenure run broke a checked property: a safety bug. */
    static final int TENURE_VIOLATION = 7;
    /** A naive run broke nothing (the fault did not land) or an experiment could not run. */
    static final int EXPERIMENT_FAILED = 8;

    @Parameters(index = "0", paramLabel = "SCENARIO", description = "A scenario name, or all.")
    String scenario;

    @Option(names = "--seed", description = "Seed for the choices a run makes (default: time-based, printed).")
    @Nullable
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
    @Nullable
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

    /** Where a random run's nodes live, and so whether faults between nodes can be drawn. */
    enum Network {
        /** Network namespaces where root, ip and nft allow it, else loopback. */
        auto,
        /** All processes on this machine's loopback: no partitions between nodes. */
        loopback,
        /** One namespace per node and a hub for the rest; fails if they cannot be made. */
        namespaces
    }

    @Option(
            names = "--network",
            description = "random: auto, loopback or namespaces: in namespaces (root, ip, nft) nodes can be"
                    + " partitioned from each other by nft rules (default: ${DEFAULT-VALUE}).",
            defaultValue = "auto")
    Network network;

    @Spec
    CommandSpec spec;

    // The LabEnv below is given System.err for its progress lines, and closing it leaves that
    // stream open: it stops the lab's processes and closes nothing it was given.
    @SuppressWarnings("ClosingStandardOutputStreams")
    @Override
    public Integer call() throws Exception {
        if (scenario.equals(RandomRun.NAME) && System.getenv(LabNetwork.ENV) == null && namespaces()) {
            return inNamespaces();
        }
        boolean rolling = scenario.equals(RollingRestart.NAME);
        List<Scenario> selected = scenario.equals(RandomRun.NAME) || rolling ? List.of() : select();
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
        try (Progress progress = Progress.start("tenure lab");
                LabEnv env = new LabEnv(
                        out.toAbsolutePath(),
                        s,
                        scale,
                        SelfLauncher::javaCommand,
                        SelfLauncher.classpath(),
                        Ports.freeClusterBase(basePort, 3),
                        progress.wrap(System.err),
                        Optional.ofNullable(System.getenv(LabNetwork.ENV)).map(base -> LabNetwork.attach(base, 3)))) {
            Thread stop = new Thread(env::close, "lab-shutdown");
            Runtime.getRuntime().addShutdownHook(stop); // Ctrl-C or SIGTERM leaves no process behind
            if (random) {
                progress.status("random, " + duration.toSeconds() + "s of faults");
                int code = random(env, s, progress);
                Runtime.getRuntime().removeShutdownHook(stop);
                return code;
            }
            if (rolling) {
                progress.status(RollingRestart.NAME);
                int code = rolling(env, s, progress);
                Runtime.getRuntime().removeShutdownHook(stop);
                return code;
            }
            PrintStream lines = progress.wrap(System.out);
            for (Scenario sc : selected) {
                progress.status(sc.name() + " (" + (results.size() + 1) + "/" + selected.size() + ")");
                ScenarioResult r = Lab.run(sc, env);
                results.add(r);
                lines.println(json ? Report.json(r, s, scale) : Report.line(r));
                lines.flush();
            }
            Runtime.getRuntime().removeShutdownHook(stop);
        }
        (json ? System.err : System.out).print("\n" + Report.table(results));
        if (results.stream().anyMatch(ScenarioResult::tenureViolated)) {
            return TENURE_VIOLATION;
        }
        return results.stream().allMatch(ScenarioResult::passed) ? ExitCodes.OK : EXPERIMENT_FAILED;
    }

    private int random(LabEnv env, long s, Progress progress) {
        long start = System.nanoTime();
        ArmResult r = new RandomRun(env, duration, workers).run();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        if (json) {
            progress.wrap(System.out).println(Report.json(r, s, ms));
        }
        PrintStream out = progress.wrap(json ? System.err : System.out);
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
                    "replay the schedule: tenure lab random --seed %d --duration %ds --workers %d --network %s%n",
                    s,
                    duration.toSeconds(),
                    workers,
                    env.network().isPresent() ? Network.namespaces : Network.loopback);
            return TENURE_VIOLATION;
        }
        return ExitCodes.OK;
    }

    private int rolling(LabEnv env, long s, Progress progress) {
        RollingRestart.Result r = new RollingRestart(env).run();
        if (json) {
            progress.wrap(System.out).println(Report.json(r, s, scale));
        }
        PrintStream out = progress.wrap(json ? System.err : System.out);
        out.printf(
                "%s: seed %d, members restarted %s, %d ops, longest gap between grants %d ms, %d violation(s)%n",
                RollingRestart.NAME,
                s,
                r.restarts(),
                r.arm().ops(),
                r.longestGrantGapMs(),
                r.arm().violations().size());
        r.arm().violations().forEach(v -> out.println("  TENURE VIOLATION " + v));
        if (r.arm().error() != null) {
            out.println("  could not run: " + r.arm().error());
            return EXPERIMENT_FAILED;
        }
        return r.arm().violations().isEmpty() ? ExitCodes.OK : TENURE_VIOLATION;
    }

    /** Whether this random run goes into namespaces; --network namespaces fails where it cannot. */
    private boolean namespaces() {
        if (network == Network.loopback) {
            return false;
        }
        Optional<String> missing = NetNamespace.missingTools();
        if (missing.isPresent() && network == Network.namespaces) {
            throw new IllegalArgumentException("--network namespaces: " + missing.get());
        }
        missing.ifPresent(why -> System.err.println("lab: nodes on loopback, no partitions between them: " + why));
        return missing.isEmpty();
    }

    /**
     * Runs this same command again inside the hub of a new {@link LabNetwork}, so that the lab,
     * its workers and proxies share the hub while each node gets a namespace of its own; deletes
     * the namespaces when it ends, however it ends short of SIGKILL (the next lab deletes those).
     */
    // The shutdown hook closes the network inside the try on purpose: a JVM stopped (Ctrl-C,
    // SIGTERM) before the try ends deletes its namespaces too; LabNetwork.close is idempotent.
    @SuppressWarnings("try")
    private int inNamespaces() throws Exception {
        try (LabNetwork net = LabNetwork.createForLab(3)) {
            System.err.println("lab: running in " + net.describe());
            List<String> cmd = net.hub().command(SelfLauncher.javaCommand(List.of()));
            cmd.addAll(spec.root().commandLine().getParseResult().originalArgs());
            ProcessBuilder builder = new ProcessBuilder(cmd).inheritIO();
            builder.environment().put(LabNetwork.ENV, net.base());
            Process lab = builder.start();
            Thread stop = new Thread(
                    () -> {
                        lab.destroy(); // the inner lab's own hook stops its nodes and workers
                        try {
                            lab.waitFor(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        net.close();
                    },
                    "lab-network-shutdown");
            Runtime.getRuntime().addShutdownHook(stop);
            int code = lab.waitFor();
            try {
                Runtime.getRuntime().removeShutdownHook(stop);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is running and deletes the namespaces
            }
            return code;
        }
    }

    private List<Scenario> select() {
        if (scenario.equals("all")) {
            return Lab.scenarios();
        }
        return Lab.byName(scenario)
                .map(List::of)
                .orElseThrow(() -> new IllegalArgumentException("no scenario '" + scenario + "'; choose one of "
                        + Lab.scenarios().stream().map(Scenario::name).collect(Collectors.joining(", "))
                        + ", all, random, or " + RollingRestart.NAME));
    }
}
