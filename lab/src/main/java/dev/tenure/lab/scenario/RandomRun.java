package dev.tenure.lab.scenario;

import dev.tenure.lab.fault.FaultMode;
import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.history.Violation;
import dev.tenure.lab.process.Faketime;
import dev.tenure.lab.process.LabNetwork;
import dev.tenure.lab.process.Proc;
import dev.tenure.lab.store.TenureKvBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * `tenure lab random`: worker slots contend for one lock and write to one fenced resource through
 * fault proxies, while the {@link Nemesis} kills, pauses and (in network namespaces) partitions
 * nodes, partitions, resets, delays and pauses workers and steps their wall clocks, faults
 * overlapping, on a schedule derived from the seed. Odd slots ask for a disconnect grace, so a
 * reset of their links must be resumed, not end their session. Each slot starts a new worker
 * process whenever its last one finishes, until the run's time is up. The history is
 * then checked like any scenario's (tokens, interleaving, stale writes, lost acknowledgements),
 * and the service itself by {@link ReplicaCheck}.
 *
 * <p>The schedule replays exactly from the seed; the interleaving of real processes around it does
 * not (it is not a simulation: see the {@code sim} module for that).
 */
public final class RandomRun {
    public static final String NAME = "random";
    /** The disconnect grace of odd worker slots: their resets must be resumed, not end the session. */
    static final long GRACE_MS = 1_000;

    private static final int NODES = 3;

    private final LabEnv env;
    private final Duration duration;
    private final int slots;
    /** libfaketime, looked up once: clock steps are drawn only where it is installed. */
    private final Optional<Path> faketime = Faketime.library();

    public RandomRun(LabEnv env, Duration duration, int slots) {
        if (duration.toMillis() < Nemesis.LEAD_IN_MS * 2) {
            throw new IllegalArgumentException(
                    "--duration must be at least " + Nemesis.LEAD_IN_MS * 2 / 1000 + " s, was " + duration);
        }
        if (slots < 2 || slots > 8) {
            throw new IllegalArgumentException("--workers must be in [2, 8], was " + slots);
        }
        this.env = env;
        this.duration = duration;
        this.slots = slots;
    }

    public List<Nemesis.Step> schedule() {
        return Nemesis.schedule(
                env.seed(),
                duration.toMillis(),
                NODES,
                slots,
                Nemesis.kinds(faketime.isPresent(), env.network().isPresent()));
    }

    /** Runs the schedule and checks the history; a run that could not be carried out says why. */
    public ArmResult run() {
        List<Nemesis.Step> schedule = schedule();
        env.progress(NAME + ": seed " + env.seed() + ", " + duration.toSeconds() + " s, " + slots + " workers"
                + " (odd ones with a " + GRACE_MS + " ms disconnect grace), clock steps "
                + (faketime.isPresent() ? "on" : "off (libfaketime not installed)") + ", partitions between nodes "
                + (env.network().isPresent() ? "on (nft rules)" : "off (nodes on loopback, not in network namespaces)")
                + ", " + schedule.size() + " faults:");
        schedule.forEach(s -> env.progress(NAME + ":   " + s.describe()));
        ArmRun run = null;
        List<Slot> started = new ArrayList<>();
        ExecutorService nemesis = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "lab-random-nemesis");
            t.setDaemon(true);
            return t;
        });
        try {
            run = new ArmRun(env, NAME, Arm.TENURE);
            run.useStore(new TenureKvBackend(String.join(",", env.nodeEndpoints()), Duration.ofSeconds(5)));
            long deadline = System.nanoTime() + duration.toNanos();
            for (int i = 0; i < slots; i++) {
                Path clock = run.dir().resolve("clock-w" + i);
                Files.writeString(clock, "+0\n");
                Slot slot = new Slot(run, i, Steps.proxies(run, "w" + i, env.nodeEndpoints()), deadline, clock);
                started.add(slot);
                slot.start();
            }
            long start = System.nanoTime();
            // Faults overlap: each runs (inject, hold, heal) on its own thread from its start time.
            List<Future<?>> inForce = new ArrayList<>();
            for (Nemesis.Step step : schedule) {
                sleepUntil(start + TimeUnit.MILLISECONDS.toNanos(step.atMs()));
                Slot slot = step.kind().onNode() ? null : started.get(step.target());
                ArmRun r = run;
                inForce.add(nemesis.submit(() -> {
                    apply(r, step, slot);
                    return null;
                }));
            }
            for (Future<?> f : inForce) {
                f.get();
            }
            sleepUntil(deadline);
            for (Slot s : started) {
                s.join(ArmRun.PATIENCE.toMillis());
            }
            run.awaitWorkers();
            ArmResult r = withNodeChecks(run.finish(), run);
            env.progress(NAME + ": " + r.violations().size() + " violation(s), " + r.ops() + " ops, " + r.faults()
                    + " faults, history in " + run.dir());
            return r;
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            env.progress(NAME + ": could not run: " + e);
            return run == null
                    ? new ArmResult(Arm.TENURE, "", List.of(), 0, 0, 0, -1, String.valueOf(e))
                    : run.failed(e);
        } finally {
            nemesis.shutdownNow();
            started.forEach(Slot::interrupt);
            if (run != null) {
                run.close();
            }
        }
    }

    /** Adds the service's own checks (invariants, replica agreement, durable tokens) to the history's. */
    private ArmResult withNodeChecks(ArmResult r, ArmRun run) throws IOException, InterruptedException {
        long maxToken = run.history().events().stream()
                .filter(e -> e.kind() == Kind.OK && e.op() == Op.ACQUIRE)
                .mapToLong(Event::token)
                .max()
                .orElse(0);
        List<Violation> all = new ArrayList<>(r.violations());
        all.addAll(ReplicaCheck.check(env.nodeLogs(), env.nodeEndpoints(), maxToken, env));
        return new ArmResult(r.arm(), r.backend(), all, r.ops(), r.faults(), r.rejected(), r.takeoverMs(), r.error());
    }

    /** A step on a client (not onNode) targets a started worker slot: apply gets it non-null. */
    private static final String CLIENT_SLOT = "a client step has its worker slot";

    private void apply(ArmRun run, Nemesis.Step step, @Nullable Slot slot) throws Exception {
        int node = step.target();
        String what = step.describe();
        if (step.kind().onNode() && node == Nemesis.LEADER) {
            OptionalInt leader = env.leader();
            node = leader.orElse(0);
            what += leader.isPresent() ? " (node " + node + ")" : " (no leader known: node 0)";
        }
        String healed = what;
        switch (step.kind()) {
            case KILL_NODE -> {
                run.fault(what);
                env.killNode(node);
                sleepMs(step.forMs());
                env.restartNodes();
            }
            case PAUSE_NODE -> {
                run.fault(what);
                env.signalNode(node, "STOP");
                sleepMs(step.forMs());
                env.signalNode(node, "CONT");
            }
            case ISOLATE_NODE, ISOLATE_NODE_FULLY, DEAF_NODE, MUTE_NODE, CUT_LINK -> {
                LabNetwork network = env.network().orElseThrow();
                network.drop(Nemesis.links(step.kind(), node, NODES));
                run.fault(what);
                sleepMs(step.forMs());
                healed += ": " + network.heal() + " packets dropped";
                env.progress(NAME + ": healed: " + healed);
            }
            case PARTITION_CLIENT ->
                proxies(run, what, Objects.requireNonNull(slot, CLIENT_SLOT), FaultMode.BLACKHOLE, step.forMs());
            case RESET_CLIENT ->
                proxies(run, what, Objects.requireNonNull(slot, CLIENT_SLOT), FaultMode.RESET, step.forMs());
            case DELAY_CLIENT ->
                proxies(run, what, Objects.requireNonNull(slot, CLIENT_SLOT), FaultMode.DELAY, step.forMs());
            case STEP_CLIENT_CLOCK -> {
                Path clock = Objects.requireNonNull(slot, CLIENT_SLOT).clock;
                run.fault(what);
                Files.writeString(clock, String.format(Locale.ROOT, "%+d%n", step.amount()));
                sleepMs(step.forMs());
                Files.writeString(clock, "+0\n");
            }
            case PAUSE_CLIENT -> {
                Proc p = Objects.requireNonNull(slot, CLIENT_SLOT).current;
                if (p == null || !p.isAlive()) {
                    env.progress(NAME + ": skipped (no worker running in w" + step.target() + "): " + what);
                    return;
                }
                run.fault(what + " (" + p.name() + ")");
                p.signal("STOP");
                sleepMs(step.forMs());
                p.signal("CONT");
            }
        }
        run.heal(healed);
    }

    private static void proxies(ArmRun run, String what, Slot slot, FaultMode mode, long forMs)
            throws InterruptedException {
        run.fault(what);
        Steps.mode(slot.links, mode);
        sleepMs(forMs);
        Steps.mode(slot.links, FaultMode.PASS);
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static void sleepMs(long ms) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(ms);
    }

    /** One worker slot: its links to the lock service, and a new worker each time the last one ends. */
    private final class Slot extends Thread {
        final List<FaultProxy> links;
        /** The offset file of this slot's wall clock (libfaketime), "+0" unless a step is in force. */
        final Path clock;

        private final ArmRun run;
        private final int index;
        private final long deadlineNanos;
        volatile @Nullable Proc current; // none before the first worker starts

        Slot(ArmRun run, int index, List<FaultProxy> links, long deadlineNanos, Path clock) {
            super("lab-random-w" + index);
            setDaemon(true);
            this.run = run;
            this.index = index;
            this.links = links;
            this.deadlineNanos = deadlineNanos;
            this.clock = clock;
        }

        @Override
        public void run() {
            try {
                for (int n = 1; System.nanoTime() < deadlineNanos; n++) {
                    Map<String, String> env = faketime.map(lib -> Faketime.wallClockEnv(lib, clock))
                            .orElse(Map.of());
                    Proc p = run.worker(
                            "w" + index + "-" + n,
                            Steps.endpoints(links),
                            env,
                            Steps.opts(
                                    "--disconnect-grace-ms", index % 2 == 1 ? GRACE_MS : 0,
                                    "--ttl-ms", 4000,
                                    "--writes", 6,
                                    "--interval-ms", 300,
                                    "--fence-min-ms", 500,
                                    "--acquire-wait-ms", 20_000,
                                    "--request-timeout-ms", 4000,
                                    "--release-retry-ms", 3000));
                    current = p;
                    // A paused worker is resumed by the nemesis; one that hangs past patience is killed.
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
