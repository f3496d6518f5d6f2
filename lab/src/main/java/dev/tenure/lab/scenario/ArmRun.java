package dev.tenure.lab.scenario;

import com.google.gson.Gson;
import dev.tenure.lab.fault.FaultProxy;
import dev.tenure.lab.history.Accept;
import dev.tenure.lab.history.Checkers;
import dev.tenure.lab.history.Event;
import dev.tenure.lab.history.History;
import dev.tenure.lab.history.Kind;
import dev.tenure.lab.history.Observation;
import dev.tenure.lab.history.Op;
import dev.tenure.lab.history.Violation;
import dev.tenure.lab.history.Window;
import dev.tenure.lab.naive.NaiveLockServer;
import dev.tenure.lab.process.Proc;
import dev.tenure.lab.store.Backend;
import dev.tenure.lab.store.LabStore;
import dev.tenure.lab.worker.LabWorker;
import dev.tenure.process.JavaCommand;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One arm (naive or Tenure) of one scenario: its history, its resource, its processes and fault
 * proxies, and the faults it injected. A scenario drives it; {@link #finish} checks what happened.
 */
public final class ArmRun implements AutoCloseable {
    /** How long the lab waits for anything a scenario expects (startup included), at any scale. */
    static final Duration PATIENCE = Duration.ofSeconds(90);

    private static final Gson GSON = new Gson();

    private final LabEnv env;
    private final Arm arm;
    private final String scenario;
    private final Path dir;
    private final History history = new History();
    private final List<Proc> workers = new ArrayList<>();
    private final List<Proc> naiveNodes = new ArrayList<>();
    private final List<FaultProxy> proxies = new ArrayList<>();
    private final Map<String, BlockingQueue<String>> points = new ConcurrentHashMap<>();
    // Set by useStore, which every scenario calls before it starts a worker; failed() and
    // stopAll() also run when a scenario failed before that, and check it.
    @SuppressWarnings("NullAway.Init")
    private LabStore store;

    private int faults;
    private long takeoverNanos = -1;

    ArmRun(LabEnv env, String scenario, Arm arm) throws IOException {
        this.env = env;
        this.arm = arm;
        this.scenario = scenario;
        this.dir = env.dir().resolve(scenario).resolve(arm.id());
        Files.createDirectories(dir);
    }

    public Arm arm() {
        return arm;
    }

    public LabEnv env() {
        return env;
    }

    public Path dir() {
        return dir;
    }

    public History history() {
        return history;
    }

    /** The lock every worker of this run contends for; unique per scenario, seed and arm. */
    public String lock() {
        return scenario + "-" + env.seed() + "-" + arm.id();
    }

    public String resource() {
        return lock() + "-data";
    }

    void useStore(Backend backend) throws IOException {
        this.store = new LabStore(backend, history::now);
    }

    public LabStore store() {
        return store;
    }

    /**
     * The lock service's endpoints: {@code nodes} fresh naive servers for the naive arm (with
     * {@code nodes > 1}, node 0 is the primary and ships every change to the others
     * asynchronously, {@code lagMs} later), or the shared Tenure cluster's three nodes.
     */
    public List<String> lockService(int nodes, long lagMs) throws IOException, InterruptedException {
        if (arm == Arm.TENURE) {
            return env.nodeEndpoints();
        }
        List<String> endpoints = new ArrayList<>();
        for (int i = nodes - 1; i >= 0; i--) {
            List<String> cmd = new ArrayList<>(
                    JavaCommand.of(JavaCommand.SMALL_JVM, env.classpath(), NaiveLockServer.class.getName()));
            if (i == 0 && nodes > 1) {
                cmd.addAll(List.of("--replicas", String.join(",", endpoints), "--lag-ms", Long.toString(lagMs)));
            }
            BlockingQueue<String> ready = new LinkedBlockingQueue<>();
            Proc p = Proc.start("naive-" + i, cmd, dir.resolve("naive-" + i + ".log"), ready::add);
            env.track(p);
            naiveNodes.add(0, p);
            String line = ready.poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null || !line.startsWith("naive: listening on ")) {
                throw new LabException("naive lock server " + i + " did not start: " + line);
            }
            endpoints.add(0, line.substring("naive: listening on ".length()).trim());
        }
        return endpoints;
    }

    /** A proxy in front of {@code target}, passing everything until the scenario says otherwise. */
    public FaultProxy proxy(String name, String target) throws IOException {
        FaultProxy p = new FaultProxy(name, target);
        proxies.add(p);
        return p;
    }

    /** Starts worker {@code name} on this run's lock, resource and store, with its own options. */
    public Proc worker(String name, List<String> lockEndpoints, String... options) throws IOException {
        return worker(name, lockEndpoints, Map.of(), options);
    }

    /** As above, with {@code env} added to the worker's environment (libfaketime, for one). */
    public synchronized Proc worker(
            String name, List<String> lockEndpoints, Map<String, String> environment, String... options)
            throws IOException {
        List<String> cmd =
                new ArrayList<>(JavaCommand.of(JavaCommand.SMALL_JVM, env.classpath(), LabWorker.class.getName()));
        cmd.addAll(List.of(
                "--name", name,
                "--service", arm.id(),
                "--lock-endpoints", String.join(",", lockEndpoints),
                "--store", store.endpoint(),
                "--lock", lock(),
                "--resource", resource()));
        cmd.addAll(List.of(options));
        BlockingQueue<String> reached = new LinkedBlockingQueue<>();
        points.put(name, reached);
        Proc p = Proc.start(name, cmd, environment, dir.resolve("worker-" + name + ".log"), line -> {
            if (line.startsWith(History.PREFIX)) {
                history.fromWorker(name, line);
            } else if (line.startsWith("@point ")) {
                reached.add(line.substring("@point ".length()));
            }
        });
        workers.add(p);
        env.track(p);
        return p;
    }

    /** Waits until worker {@code p} stands at the named point (it waits there for {@code go}). */
    public void awaitPoint(Proc p, String point) throws InterruptedException {
        String reached = Objects.requireNonNull(points.get(p.name()), "registered when the worker started")
                .poll(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        if (!point.equals(reached)) {
            throw new LabException(p.name() + " did not reach point " + point + " (got " + reached + "); see "
                    + dir.resolve("worker-" + p.name() + ".log"));
        }
    }

    public Event await(String what, Predicate<Event> match) throws InterruptedException {
        Event e = history.await(match, PATIENCE.toNanos());
        if (e == null) {
            throw new LabException("waited " + PATIENCE.toSeconds() + " s for " + what + "; see " + dir + workersNow());
        }
        return e;
    }

    /**
     * Where each worker stood when a wait ran out: running or its exit code, its last event, and
     * the end of its log when it has been silent for a while, so that a failure seen only in a
     * message (a CI run whose directories are gone) still says which process stopped and why.
     */
    private String workersNow() {
        StringBuilder b = new StringBuilder("; workers now:");
        List<Event> events = history.events();
        long now = history.now();
        for (Proc p : workers()) {
            if (!p.isAlive() && p.exitValue() == 0) {
                continue;
            }
            Event last = null;
            for (int i = events.size() - 1; i >= 0 && last == null; i--) {
                if (events.get(i).process().equals(p.name())) {
                    last = events.get(i);
                }
            }
            b.append("\n  ").append(p.name()).append(p.isAlive() ? " running" : " exited " + p.exitValue());
            if (last == null) {
                b.append(", no event");
                continue;
            }
            long silentMs = TimeUnit.NANOSECONDS.toMillis(now - last.nanos());
            b.append(", last event ")
                    .append(silentMs)
                    .append(" ms ago: ")
                    .append(last.kind())
                    .append(' ')
                    .append(last.op())
                    .append(" n=")
                    .append(last.n())
                    .append(' ')
                    .append(last.detail());
            if (silentMs > TimeUnit.SECONDS.toMillis(10)) {
                b.append(logTail(dir.resolve("worker-" + p.name() + ".log")));
            }
        }
        return b.toString();
    }

    /** The last lines of a worker's log that are not events (its errors and stack traces). */
    private static String logTail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.contains(History.PREFIX))
                    .toList();
            return "\n    " + String.join("\n    ", lines.subList(Math.max(0, lines.size() - 6), lines.size()));
        } catch (IOException e) {
            return " (log unreadable: " + e.getMessage() + ")";
        }
    }

    public Event await(String process, Kind kind, Op op) throws InterruptedException {
        return await(
                process + " " + kind + " " + op, e -> e.process().equals(process) && e.kind() == kind && e.op() == op);
    }

    /** The first acknowledged write number {@code n} of {@code process}. */
    public Event awaitWrite(String process, int n) throws InterruptedException {
        return await(
                process + " write " + n,
                e -> e.process().equals(process) && e.kind() == Kind.OK && e.op() == Op.WRITE && e.n() == n);
    }

    /** Records an injected fault; returns its lab time. */
    public synchronized long fault(String what) {
        faults++;
        env.progress(scenario + " " + arm.id() + ": fault: " + what);
        return history.lab(Op.FAULT, what).nanos();
    }

    public long heal(String what) {
        return history.lab(Op.HEAL, what).nanos();
    }

    /** Time from the fault to the next holder's grant. */
    public void takeover(long faultNanos, Event grant) {
        takeoverNanos = grant.nanos() - faultNanos;
    }

    public void window(String what, long startNanos, long endNanos) {
        history.window(new Window(what, startNanos, endNanos));
    }

    public void killNaiveNode(int i) {
        naiveNodes.get(i).kill9();
    }

    /** Waits for every worker to exit by itself. */
    public void awaitWorkers() throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        for (Proc p : workers()) {
            long left = Math.max(0, deadline - System.nanoTime());
            if (!p.awaitExit(Duration.ofNanos(left))) {
                throw new LabException("worker " + p.name() + " did not finish; see " + dir);
            }
        }
    }

    /** Waits until the store has decided a write of {@code writer} (e.g. one that was delayed). */
    public void awaitStoreDecision(String writer) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (store.log().stream().noneMatch(a -> a.writer().equals(writer))) {
            if (System.nanoTime() > deadline) {
                throw new LabException("the store never saw a write of " + writer);
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /** Stops everything still running, then checks the history and writes it to the run's directory. */
    ArmResult finish() throws IOException {
        stopAll();
        history.closeOpen("no answer before the process ended");
        List<Accept> accepts = store.log();
        Map<String, Optional<String>> finals = new TreeMap<>();
        for (Accept a : accepts) {
            finals.computeIfAbsent(a.resource(), r -> store.backend().read(r));
        }
        for (Event e : history.events()) {
            if (e.op() == Op.WRITE && !e.resource().isEmpty()) {
                finals.computeIfAbsent(e.resource(), r -> store.backend().read(r));
            }
        }
        Observation o = new Observation(history.events(), accepts, finals, history.windows());
        List<Violation> violations = Checkers.check(o);
        save(o, violations);
        long ops = o.events().stream().filter(e -> e.kind() == Kind.INVOKE).count();
        return new ArmResult(
                arm, store.backend().name(), violations, ops, faults, store.rejected(), takeoverMs(), null);
    }

    ArmResult failed(Exception e) {
        stopAll();
        return new ArmResult(
                arm,
                store == null ? "" : store.backend().name(),
                List.of(),
                0,
                faults,
                0,
                -1,
                e.getClass().getSimpleName() + ": " + e.getMessage());
    }

    private long takeoverMs() {
        return takeoverNanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(takeoverNanos);
    }

    private void save(Observation o, List<Violation> violations) throws IOException {
        List<String> lines = new ArrayList<>();
        o.events().forEach(e -> lines.add(GSON.toJson(e)));
        Files.write(dir.resolve("history.jsonl"), lines, StandardCharsets.UTF_8);
        lines.clear();
        o.accepts().forEach(a -> lines.add(GSON.toJson(a)));
        Files.write(dir.resolve("accepts.jsonl"), lines, StandardCharsets.UTF_8);
        lines.clear();
        o.finalValues().forEach((r, v) -> lines.add(r + " = " + v.orElse("(absent)")));
        Files.write(dir.resolve("final-values.txt"), lines, StandardCharsets.UTF_8);
        lines.clear();
        violations.forEach(v -> lines.add(v.toString()));
        Files.write(dir.resolve("violations.txt"), lines, StandardCharsets.UTF_8);
    }

    private synchronized List<Proc> workers() {
        return List.copyOf(workers);
    }

    private void stopAll() {
        workers().forEach(Proc::close);
        proxies.forEach(FaultProxy::close);
        naiveNodes.forEach(Proc::close);
    }

    @Override
    public void close() {
        stopAll();
        if (store != null) {
            store.close();
        }
    }
}
