package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.HdrHistogram.Recorder;

/**
 * Many idle holders: {@code --sessions} sessions, spread over {@code --clients} connections, each
 * holding one lock, kept alive for {@code --warmup}, then for {@code --duration}. It measures what idle ownership costs the
 * server: CPU while the sessions only renew (from {@code /proc}), and memory per session-with-lock
 * as the growth of the server's live heap (after a full GC, both times) and of its resident set,
 * divided by the number of sessions. Without server pids it reports the client side only.
 *
 * <p>With {@code --watchers N}, N watches of every lock it holds are attached before the set-up
 * (each grant reaches all of them), so the CPU figure shows what idle watches cost the server.
 *
 * <p>With {@code --locks-per-session K} above 1, each session then acquires K-1 more locks, so the
 * node holds sessions x K locks and the memory is also given per lock: with K large, the growth is
 * nearly all locks (a session costs about as much as two locks).
 *
 * <p>The operations of this workload are the session opens + first acquires of the set-up, then
 * the further acquires; their latency and rate are reported as the usual fields.
 */
final class HoldWorkload {

    /** Set-up requests in flight at once: enough to pipeline, few enough not to time out on 2 cores. */
    private static final int SETUP_WINDOW = 128;

    private static final int TOP_CLASSES = 5;

    private HoldWorkload() {}

    static Figures run(LoadConfig config) throws Exception {
        List<Long> pids = config.serverPids();
        Map<Long, Map<String, Long>> heapBefore = new LinkedHashMap<>();
        Map<Long, Long> rssBefore = new LinkedHashMap<>();
        for (long pid : pids) {
            heapBefore.put(pid, ServerProbe.liveHeap(pid));
            rssBefore.put(pid, ServerProbe.rssBytes(pid));
        }
        String run = Clients.runId();
        String lockPrefix = "bench-hold-" + run + "-";
        try (Clients clients = new Clients();
                // Attached before the set-up, so each grant of it reaches every watch too.
                Watchers watchers =
                        Watchers.start(clients, config, "hold", config.watchers(), lockPrefix, seen -> {})) {
            List<TenureClient> connections = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                connections.add(clients.open(config, "hold-" + i));
            }
            Recorder setup = new Recorder(1_000, 3_600_000_000_000L, 3);
            long setupStart = System.nanoTime();
            LeaseDoubts doubts = new LeaseDoubts();
            List<Session> sessions = openAndAcquire(config, connections, lockPrefix, setup, doubts);
            long locks = sessions.size() + acquireMore(config, sessions, lockPrefix, setup, doubts);
            double setupSeconds = (System.nanoTime() - setupStart) / 1e9;

            Figures f = Figures.of("hold", config.clients(), locks, setupSeconds, setup.getIntervalHistogram())
                    .with(
                            "latency",
                            config.locksPerSession() == 1
                                    ? "set-up: open session + acquire"
                                    : "set-up: open session + acquire, then each further acquire")
                    .with("sessions", sessions.size())
                    .with("locks", locks);
            f = memory(f, pids, heapBefore, rssBefore, sessions.size(), locks);
            // The first renewals are the server's first: its JIT compiles their path then, which
            // is start-up cost, not what holding costs.
            ClosedLoop.progress(config, "hold", sessions.size() + " sessions hold a lock; warm-up " + config.warmup());
            TimeUnit.NANOSECONDS.sleep(config.warmup().toNanos());
            ClosedLoop.progress(
                    config, "hold", sessions.size() + " sessions hold a lock; measuring for " + config.duration());
            f = cpu(f, config, pids);
            long notConnected = sessions.stream()
                    .filter(s -> s.state() != Session.State.CONNECTED)
                    .count();
            long lost = sessions.stream()
                    .filter(s -> s.state() == Session.State.LOST)
                    .count();
            if (config.watchers() > 0) {
                f = f.with("watchers", config.watchers())
                        .with("watch_events", watchers.events())
                        .with("watches_ended", watchers.ended());
            }
            return clients.withReplacements(f.with("sessions_not_connected", notConnected)
                    .with("sessions_lost", lost)
                    .with("leases_in_doubt", doubts.inDoubt()));
        }
    }

    private static List<Session> openAndAcquire(
            LoadConfig config, List<TenureClient> connections, String lockPrefix, Recorder setup, LeaseDoubts doubts)
            throws InterruptedException {
        int n = config.sessions();
        List<Session> sessions = java.util.Collections.synchronizedList(new ArrayList<>(n));
        SetupWindow window = new SetupWindow(n, setup);
        long lastProgress = System.nanoTime();
        for (int i = 0; i < n && !window.failed(); i++) {
            String lock = lockPrefix + i;
            TenureClient connection = connections.get(i % connections.size());
            window.start(() -> connection.openSessionAsync().thenCompose(s -> {
                sessions.add(s);
                return s.acquireAsync(lock, (java.time.Duration) null).thenApply(doubts::watch);
            }));
            if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(5)) {
                ClosedLoop.progress(config, "hold", "set-up: " + (i + 1) + " of " + n + " sessions");
                lastProgress = System.nanoTime();
            }
        }
        window.awaitAll(() -> sessions.size() + " sessions");
        return sessions;
    }

    /**
     * The locks beyond each session's first, {@code --locks-per-session} in all per session, with
     * the same window of requests in flight; returns how many were granted.
     */
    private static long acquireMore(
            LoadConfig config, List<Session> sessions, String lockPrefix, Recorder setup, LeaseDoubts doubts)
            throws InterruptedException {
        int more = config.locksPerSession() - 1;
        if (more == 0) {
            return 0;
        }
        SetupWindow window = new SetupWindow(sessions.size() * more, setup);
        long lastProgress = System.nanoTime();
        long issued = 0;
        for (int j = 1; j <= more && !window.failed(); j++) {
            for (int i = 0; i < sessions.size() && !window.failed(); i++) {
                Session session = sessions.get(i);
                String lock = lockPrefix + i + "-" + j;
                window.start(() ->
                        session.acquireAsync(lock, (java.time.Duration) null).thenApply(doubts::watch));
                issued++;
                if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(5)) {
                    ClosedLoop.progress(config, "hold", "set-up: " + (sessions.size() + issued) + " locks");
                    lastProgress = System.nanoTime();
                }
            }
        }
        long locks = sessions.size() + issued;
        window.awaitAll(() -> locks + " locks");
        return issued;
    }

    /**
     * Leases whose validity lapsed at least once while held ({@link Lease#invalidated()} without a
     * loss): their holder had to stop trusting them for a while, which a short grace on a busy
     * machine causes and a lost lease counts apart.
     */
    private static final class LeaseDoubts {
        private final LongAdder inDoubt = new LongAdder();

        Lease watch(Lease lease) {
            // Counted when it happens; the stage itself has nothing more to say.
            CompletableFuture<?> unused = lease.invalidated().thenAccept(loss -> {
                if (loss.isEmpty()) {
                    inDoubt.increment();
                }
            });
            return lease;
        }

        long inDoubt() {
            return inDoubt.sum();
        }
    }

    /**
     * Set-up requests in flight, at most {@link #SETUP_WINDOW}: each one's latency is recorded, the
     * first failure kept, and the set-up fails with it once the requests started have ended.
     */
    private static final class SetupWindow {
        private final Semaphore room = new Semaphore(SETUP_WINDOW);
        private final CountDownLatch done;
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Recorder latency;

        SetupWindow(int requests, Recorder latency) {
            this.done = new CountDownLatch(requests);
            this.latency = latency;
        }

        boolean failed() {
            return failure.get() != null;
        }

        /** Waits for room, then starts the request. */
        void start(Supplier<CompletableFuture<?>> request) throws InterruptedException {
            room.acquire();
            long start = System.nanoTime();
            // The outcome is recorded by whenComplete: the returned stage has nothing more to say.
            CompletableFuture<?> unused = request.get().whenComplete((result, error) -> {
                if (error == null) {
                    latency.recordValue(Math.max(1_000, System.nanoTime() - start));
                } else {
                    failure.compareAndSet(null, error);
                }
                room.release();
                done.countDown();
            });
        }

        /** Waits for every request unless one failed; then throws the first failure, if any. */
        void awaitAll(Supplier<String> progress) throws InterruptedException {
            if (failure.get() == null) {
                done.await();
            }
            Throwable first = failure.get();
            if (first != null) {
                throw new BenchFailedException(
                        "hold: set-up failed after " + progress.get() + ": " + ClosedLoop.describe(first), first);
            }
        }
    }

    private static Figures memory(
            Figures f,
            List<Long> pids,
            Map<Long, Map<String, Long>> heapBefore,
            Map<Long, Long> rssBefore,
            int n,
            long locks)
            throws IOException, InterruptedException {
        if (pids.isEmpty()) {
            return f.with("server", "not measured: give --server-pid or --cluster-dir");
        }
        long heapGrowth = 0;
        long rssGrowth = 0;
        Map<String, Long> classGrowth = new LinkedHashMap<>();
        for (long pid : pids) {
            Map<String, Long> after = ServerProbe.liveHeap(pid);
            // Every pid was measured before the run, and every histogram holds its total under "".
            Map<String, Long> heapAtStart = Objects.requireNonNull(heapBefore.get(pid), "measured before the run");
            heapGrowth += Objects.requireNonNull(after.get(""), "the histogram's total")
                    - Objects.requireNonNull(heapAtStart.get(""), "the histogram's total");
            rssGrowth +=
                    ServerProbe.rssBytes(pid) - Objects.requireNonNull(rssBefore.get(pid), "measured before the run");
            for (Map.Entry<String, Long> e : ServerProbe.topGrowth(heapAtStart, after, TOP_CLASSES)) {
                classGrowth.merge(e.getKey(), e.getValue(), Long::sum);
            }
        }
        String top = classGrowth.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(TOP_CLASSES)
                .map(e -> e.getKey() + ":" + e.getValue() / n)
                .collect(Collectors.joining(","));
        return f.with("server_pids", pids.stream().map(String::valueOf).collect(Collectors.joining(",")))
                .with("server_heap_bytes_per_session", heapGrowth / (double) n)
                .with("server_rss_bytes_per_session", rssGrowth / (double) n)
                .with("server_heap_bytes_per_lock", heapGrowth / (double) locks)
                .with("server_rss_bytes_per_lock", rssGrowth / (double) locks)
                .with("server_heap_growth_top_bytes_per_session", top);
    }

    private static Figures cpu(Figures f, LoadConfig config, List<Long> pids) throws IOException, InterruptedException {
        long self = ProcessHandle.current().pid();
        Map<Long, Long> before = new LinkedHashMap<>();
        for (long pid : pids) {
            before.put(pid, ServerProbe.cpuNanos(pid));
        }
        long selfBefore = ServerProbe.cpuNanos(self);
        long start = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(config.duration().toNanos());
        long wall = System.nanoTime() - start;
        double serverPct = 0;
        List<String> byPid = new ArrayList<>();
        for (long pid : pids) {
            double pct = 100.0
                    * (ServerProbe.cpuNanos(pid) - Objects.requireNonNull(before.get(pid), "measured before the run"))
                    / wall;
            serverPct += pct;
            byPid.add(pid + ":" + String.format(Locale.ROOT, "%.2f", pct));
        }
        double selfPct = 100.0 * (ServerProbe.cpuNanos(self) - selfBefore) / wall;
        f = f.with("held_s", wall / 1e9).with("bench_cpu_pct_of_one_core", selfPct);
        if (!pids.isEmpty()) {
            f = f.with("server_cpu_pct_of_one_core", serverPct).with("server_cpu_pct_by_pid", String.join(",", byPid));
        }
        return f;
    }
}
