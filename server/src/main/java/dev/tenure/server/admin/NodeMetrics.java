package dev.tenure.server.admin;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.core.Limits;
import dev.tenure.core.Usage;
import dev.tenure.server.cluster.ReplicaListener;
import dev.tenure.server.guard.MemoryBudget;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The node's metrics, scraped in Prometheus' text format from the admin endpoint's
 * {@code /metrics}: gRPC calls by method and status (Micrometer's interceptor), JVM and process
 * figures, the cluster's state as the last health probe read it through the log, every stale
 * write this node rejected, by target, histograms (acquire wait, commit, call latency) and the
 * replicated lease metrics ({@link LeaseMetrics}). No label carries a lock name or a key.
 *
 * <p>Stale writes are counted by the node that served the writer, so the sum over all nodes is
 * the cluster's count with nothing counted twice. The replicated total every node agrees on is
 * exported separately ({@code tenure_cluster_stale_writes_rejected_total}); take its max over
 * nodes, not its sum.
 */
public final class NodeMetrics implements AutoCloseable {

    /** Bucket bounds of the gRPC call latency histogram (ns; exported in seconds). */
    static final double[] CALL_BUCKETS_NANOS =
            nanos(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30);

    static final Duration[] ACQUIRE_BUCKETS =
            LeaseMetrics.seconds(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300);
    static final Duration[] COMMIT_BUCKETS =
            LeaseMetrics.seconds(0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1, 5);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    /** The last probe's status: health, leader and this node's own positions. */
    private final AtomicReference<ServerStatusResponse> latest =
            new AtomicReference<>(ServerStatusResponse.getDefaultInstance());
    /**
     * The last status whose counts came through the log. Without a quorum the counts are
     * unknown, not zero: the replicated gauges keep their last known values meanwhile.
     */
    private final AtomicReference<ServerStatusResponse> replicated =
            new AtomicReference<>(ServerStatusResponse.getDefaultInstance());

    private final LeaseMetrics leases;
    private final Counter staleRelease;
    private final Counter staleCheckpoint;
    private final Counter staleKv;
    /** By result: the API's codes, a dozen at most. */
    private final Map<String, Timer> acquireWait = new ConcurrentHashMap<>();

    private final Timer commit;
    private final Counter resets;
    private final Counter resumes;
    /** What {@link #reads} exports, held strongly for as long as the metrics are. */
    @SuppressWarnings("UnusedVariable")
    private LongSupplier[] readCounts = new LongSupplier[0];
    /** By method, then status code: a few dozen at most. */
    private final Map<String, Map<Status.Code, CallMeters>> carried = new ConcurrentHashMap<>();

    public NodeMetrics() {
        // Before any meter exists: a filter shapes only the meters registered after it.
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals("grpc.server.processing.duration")) {
                    return config;
                }
                return DistributionStatisticConfig.builder()
                        .serviceLevelObjectives(CALL_BUCKETS_NANOS)
                        .build()
                        .merge(config);
            }
        });
        leases = new LeaseMetrics(registry);
        staleRelease = staleCounter("release");
        staleCheckpoint = staleCounter("checkpoint");
        staleKv = staleCounter("kv");
        commit = Timer.builder("tenure.commit")
                .description("From a command's submission by this node to its applied reply (per node)")
                .serviceLevelObjectives(COMMIT_BUCKETS)
                .register(registry);
        resets = Counter.builder("tenure.session.resets")
                .description("Session streams bound here that broke without a Close (per node): each starts"
                        + " a disconnect grace, in which the client's leases go in doubt")
                .register(registry);
        resumes = Counter.builder("tenure.session.resumes")
                .description("Sessions resumed on a new stream at this node (per node)")
                .register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        gauge(
                "tenure.health.ok",
                "1 when the node serves end to end (health ok: the log commits, the client port answers), else 0",
                s -> "ok".equals(s.getHealth()) ? 1 : 0);
        gauge(
                "tenure.health.since",
                "Wall-clock time (seconds since the epoch) the node entered its current health state",
                s -> s.getHealthSinceMs() / 1000.0);
        gauge(
                "tenure.leader",
                "1 when this node's gateway sees itself as the leader's member",
                s -> s.getLeaderId() == s.getNodeId() && s.getLeaderId() >= 0 ? 1 : 0);
        gauge(
                "tenure.leader.id",
                "Member id of the leader this node's gateway follows, -1 if none",
                s -> s.getLeaderId());
        gauge(replicated, "tenure.sessions", "Live sessions in the replicated state", s -> s.getSessions());
        gauge(replicated, "tenure.locks", "Locks with a holder or waiters", s -> s.getLocks());
        gauge(replicated, "tenure.locks.held", "Locks that have a holder", s -> s.getHeld());
        gauge(replicated, "tenure.token.last", "Highest fencing token granted", s -> s.getLastToken());
        gauge(
                "tenure.replica.log.position",
                "Log position this node's replica has applied",
                s -> s.getReplicaLogPosition());
        gauge("tenure.log.start.position", "Where this node's retained log starts", s -> s.getLogStartPosition());
        gauge("tenure.snapshot.position", "Log position of this node's latest snapshot", s -> s.getSnapshotPosition());
        FunctionCounter.builder("tenure.snapshots", latest, r -> last(r).getSnapshots())
                .description("Snapshots this node has taken since it started")
                .register(registry);
        FunctionCounter.builder("tenure.cluster.stale.writes.rejected", latest, r -> last(r).getStaleWritesRejected())
                .description("Stale writes the cluster rejected (replicated; the same on every node)")
                .register(registry);
    }

    private static ServerStatusResponse last(AtomicReference<ServerStatusResponse> source) {
        return Objects.requireNonNull(source.get(), "set at construction, and then only to a probe's status");
    }

    private void gauge(String name, String description, ToDoubleFunction<ServerStatusResponse> value) {
        gauge(latest, name, description, value);
    }

    private void gauge(
            AtomicReference<ServerStatusResponse> source,
            String name,
            String description,
            ToDoubleFunction<ServerStatusResponse> value) {
        Gauge.builder(name, source, r -> value.applyAsDouble(r.get()))
                .description(description)
                .register(registry);
    }

    /**
     * Records a unary call that came as a frame of a Calls stream into the same series the gRPC
     * interceptor keeps for unary calls (service, method, UNARY, status code), so a method's count
     * and latency do not depend on how the client carried it.
     */
    public void carriedCall(String method, Status.Code code, long nanos) {
        // Looked up before anything is built: this runs once per call.
        Map<Status.Code, CallMeters> byCode = carried.get(method);
        if (byCode == null) {
            byCode = carried.computeIfAbsent(method, k -> new ConcurrentHashMap<>());
        }
        CallMeters m = byCode.get(code);
        if (m == null) {
            m = byCode.computeIfAbsent(code, k -> meters(method, code));
        }
        m.received.increment();
        if (code == Status.Code.OK) {
            m.sent.increment();
        }
        m.duration.record(nanos, TimeUnit.NANOSECONDS);
    }

    private CallMeters meters(String method, Status.Code code) {
        Tags tags = Tags.of("service", TenureGrpc.SERVICE_NAME, "method", method, "methodType", "UNARY");
        return new CallMeters(
                Counter.builder("grpc.server.requests.received")
                        .baseUnit("messages")
                        .tags(tags)
                        .register(registry),
                Counter.builder("grpc.server.responses.sent")
                        .baseUnit("messages")
                        .tags(tags)
                        .register(registry),
                Timer.builder("grpc.server.processing.duration")
                        .tags(tags)
                        .tag("statusCode", code.name())
                        .register(registry));
    }

    private static double[] nanos(double... seconds) {
        double[] out = new double[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
            out[i] = seconds[i] * 1e9;
        }
        return out;
    }

    private record CallMeters(Counter received, Counter sent, Timer duration) {}

    /** The gRPC port's connections, as the gateway counts them. */
    public interface ConnectionFigures {
        /** Client connections open now. */
        int open();

        /** Connections closed at accept because connectionsMax were open. */
        long refused();

        /** Connections closed because their client did not read its answers. */
        long cutOff();

        /** Bytes of answers waiting for clients that do not keep up (beyond gRPC's 32 KiB per call). */
        long unsentBytes();
    }

    /**
     * Exports the read index's counts, read at each scrape: reads it answered, and read barriers the
     * gateway sent for them (fewer than reads: reads that arrive together share one, and reads ride
     * on the gateway's writes and renewals without one), and how many of the reads the read lease
     * answered, without waiting for any entry.
     */
    public void reads(LongSupplier answered, LongSupplier barriers, LongSupplier leased) {
        // Micrometer holds what it reads weakly: the suppliers, made for this call, are kept here.
        readCounts = new LongSupplier[] {answered, barriers, leased};
        FunctionCounter.builder("tenure.reads.indexed", answered, LongSupplier::getAsLong)
                .description("Reads (status, KV get, listing page) the leader answered from its replica"
                        + " without a log entry of their own")
                .register(registry);
        FunctionCounter.builder("tenure.read.barriers", barriers, LongSupplier::getAsLong)
                .description("Empty keepalive batches the gateway sent because reads waited and it had"
                        + " nothing else to send")
                .register(registry);
        FunctionCounter.builder("tenure.reads.leased", leased, LongSupplier::getAsLong)
                .description("Of the reads the leader answered from its replica, those the read lease"
                        + " answered without waiting for an entry of the log (readLeaseMs)")
                .register(registry);
    }

    /** Exports {@code figures}: read at each scrape. */
    public void connections(ConnectionFigures figures) {
        Gauge.builder("tenure.connections.open", figures, ConnectionFigures::open)
                .description("Client connections open on the gRPC port (at most connectionsMax)")
                .register(registry);
        FunctionCounter.builder("tenure.connections.refused", figures, ConnectionFigures::refused)
                .description("Connections closed at accept because connectionsMax connections were open")
                .register(registry);
        FunctionCounter.builder("tenure.connections.slow.readers", figures, ConnectionFigures::cutOff)
                .description("Connections closed because their client did not read its answers"
                        + " (unsentBytesMax, nodeUnsentBytesMax)")
                .register(registry);
        Gauge.builder("tenure.connections.unsent", figures, ConnectionFigures::unsentBytes)
                .description("Answers waiting for clients that do not keep up, beyond gRPC's 32 KiB per call")
                .baseUnit("bytes")
                .register(registry);
    }

    /**
     * The memory figures: every limit ({@code tenure_limit}), how much of each count and byte
     * budget the node's own replica uses ({@code tenure_limit_used}, the same limit names), what
     * the budget estimated at start for each kind ({@code tenure_memory_estimate_bytes}) and may
     * fill ({@code tenure_memory_allowed_bytes}), and whether the heap guard refuses writes now
     * ({@code tenure_heap_guard_refusing}). A few dozen series, whatever the state holds.
     */
    public void memory(MemoryBudget.Estimate estimate, Supplier<Usage> usage, Supplier<String> refusal, Limits limits) {
        // Strong references: a gauge keeps its object weakly, and the suppliers here are lambdas
        // nothing else keeps (a collected one reads NaN).
        for (String name : Limits.names()) {
            Gauge.builder("tenure.limit", limits, l -> l.get(name))
                    .description("A limit of the state machine, by name")
                    .tag("name", name)
                    .strongReference(true)
                    .register(registry);
        }
        used("sessionsMax", usage, Usage::sessions);
        used("locksMax", usage, Usage::busyLocks);
        used("idleLocksMax", usage, Usage::idleLocks);
        used("waitersMax", usage, Usage::waiters);
        used("kvKeysMax", usage, Usage::kvKeys);
        used("kvBytesMax", usage, Usage::kvBytes);
        used("checkpointTotalBytesMax", usage, Usage::checkpointBytes);
        for (MemoryBudget.Line line : estimate.lines()) {
            Gauge.builder("tenure.memory.estimate", line, l -> l.heapBytes() + l.snapshotBytes())
                    .description("What the limits can fill of the heap, by kind (with a snapshot image of it)")
                    .baseUnit("bytes")
                    .tag("kind", line.kind())
                    .strongReference(true)
                    .register(registry);
        }
        Gauge.builder("tenure.memory.allowed", estimate, MemoryBudget.Estimate::allowedBytes)
                .description("What the limits may fill of the heap: a share of its old generation")
                .baseUnit("bytes")
                .strongReference(true)
                .register(registry);
        Gauge.builder("tenure.heap.guard.refusing", refusal, r -> r.get() == null ? 0 : 1)
                .description("1 while the heap is nearly full and KV writes and checkpoints are refused")
                .strongReference(true)
                .register(registry);
    }

    private void used(String limit, Supplier<Usage> usage, ToDoubleFunction<Usage> value) {
        Gauge.builder("tenure.limit.used", usage, u -> value.applyAsDouble(u.get()))
                .description("How much of a limit this node's replica uses")
                .tag("name", limit)
                .strongReference(true)
                .register(registry);
    }

    /** Records calls by service, method and status code. */
    public ServerInterceptor grpcInterceptor() {
        return new MetricCollectingServerInterceptor(registry);
    }

    /** The status a health probe just read: what the cluster gauges report until the next one. */
    public void observe(ServerStatusResponse status) {
        latest.set(status);
        if (status.getNowMs() > 0) {
            replicated.set(status);
        }
    }

    /**
     * A write with a stale token was rejected for a writer this node served. Counted by what was
     * written to ({@code release}, {@code checkpoint}, {@code kv}), never by lock or key: names
     * are user data, and {@code tenure status LOCK} has each lock's own stale writes.
     */
    public void staleWrite(String target) {
        Counter c = target.equals("release") ? staleRelease : target.equals("checkpoint") ? staleCheckpoint : staleKv;
        c.increment();
    }

    private Counter staleCounter(String target) {
        return Counter.builder("tenure.stale.writes.rejected")
                .description("Writes rejected because their fencing token was not the lock's current one,"
                        + " counted by the node that served the writer")
                .tag("target", target)
                .register(registry);
    }

    /** What this node's replica applies: the replicated lease metrics. */
    public ReplicaListener replicaListener() {
        return leases;
    }

    /**
     * An acquire this node served was answered: {@code result} is the API's code without its
     * prefix (GRANTED for OK), or UNAVAILABLE / INVALID when it failed before an answer.
     */
    public void acquireAnswered(String result, long nanos) {
        Timer t = acquireWait.get(result);
        if (t == null) {
            t = acquireWait.computeIfAbsent(result, this::acquireTimer);
        }
        t.record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer acquireTimer(String result) {
        return Timer.builder("tenure.acquire.wait")
                .description("From an acquire's arrival at this node to its answer, by result (per node)")
                .tag("result", result)
                .serviceLevelObjectives(ACQUIRE_BUCKETS)
                .register(registry);
    }

    /** A command this node wrote to the log was applied and its reply came back after {@code nanos}. */
    public void committed(long nanos) {
        commit.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A session stream bound here broke without a Close: its disconnect grace starts. */
    public void sessionReset() {
        resets.increment();
    }

    /** A session resumed on a new stream at this node. */
    public void sessionResumed() {
        resumes.increment();
    }

    /** Every metric in Prometheus' text exposition format (version 0.0.4). */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
