package dev.tenure.server.admin;

import dev.tenure.api.v1.ServerStatusResponse;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.core.Limits;
import dev.tenure.core.Usage;
import dev.tenure.server.guard.MemoryBudget;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.grpc.MetricCollectingServerInterceptor;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The node's metrics, scraped in Prometheus' text format from the admin endpoint's
 * {@code /metrics}: gRPC calls by method and status (Micrometer's interceptor), JVM and process
 * figures, the cluster's state as the last health probe read it through the log, and every stale
 * write this node rejected, by lock and target.
 *
 * <p>Stale writes are counted by the node that served the writer, so the sum over all nodes is
 * the cluster's count with nothing counted twice. The replicated total every node agrees on is
 * exported separately ({@code tenure_cluster_stale_writes_rejected_total}); take its max over
 * nodes, not its sum.
 */
public final class NodeMetrics implements AutoCloseable {

    /**
     * Distinct (lock, target) series of the stale-write counter; later pairs are counted under
     * {@link #OTHER}. Lock names are user data: without a bound, a buggy writer could grow the
     * scrape without limit.
     */
    public static final int STALE_SERIES_MAX = MemoryBudget.STALE_SERIES_MAX;

    static final String OTHER = "_other";

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

    private final Map<String, Counter> staleSeries = new TreeMap<>(); // guarded by itself
    /** By method, then status code: a few dozen at most. */
    private final Map<String, Map<Status.Code, CallMeters>> carried = new ConcurrentHashMap<>();

    public NodeMetrics() {
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

    /** A write with a stale token was rejected for a writer this node served. */
    public void staleWrite(String lock, String target) {
        counter(lock, target).increment();
    }

    private Counter counter(String lock, String target) {
        synchronized (staleSeries) {
            String key = lock + '\u0000' + target;
            Counter c = staleSeries.get(key);
            if (c != null) {
                return c;
            }
            boolean room = staleSeries.size() < STALE_SERIES_MAX;
            String tagLock = room ? lock : OTHER;
            String tagTarget = room ? target : OTHER;
            c = Counter.builder("tenure.stale.writes.rejected")
                    .description("Writes rejected because their fencing token was not the lock's current one,"
                            + " counted by the node that served the writer")
                    .tag("lock", tagLock)
                    .tag("target", tagTarget)
                    .register(registry);
            if (room) {
                staleSeries.put(key, c);
            }
            return c;
        }
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
