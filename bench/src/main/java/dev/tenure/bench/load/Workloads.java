package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import java.util.List;

/** The workloads {@code tenure bench} runs against a live Tenure, by name. */
public final class Workloads {

    /** In the order {@code tenure bench all} runs them. */
    public static final List<String> NAMES = List.of(
            "uncontended",
            "sporadic",
            "parallel",
            "contended",
            "semaphore",
            "fenced-write",
            "takeover",
            "election",
            "hold",
            "watch",
            "reads");

    private Workloads() {}

    /**
     * The client count a workload uses when {@code --clients} is not given: one for the latency
     * workloads, 32 for {@code parallel} (the point at which etcd and ZooKeeper were measured),
     * 8 waiters for {@code contended}, 32 for {@code semaphore} (four per permit) and {@code reads}, 3 candidates for
     * {@code election}, 10 connections for {@code hold}; one acquiring client for {@code watch}, whose watches are {@code --watchers}.
     */
    public static int defaultClients(String name) {
        return switch (name) {
            case "parallel", "semaphore", "reads" -> 32;
            case "contended" -> 8;
            case "hold" -> 10;
            case "election" -> 3;
            default -> 1;
        };
    }

    /** Checks that {@code name} is a workload and that it accepts {@code clients}. */
    public static void check(String name, int clients) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException(
                    "unknown workload '" + name + "'; choose from " + String.join(", ", NAMES) + ", all or limits");
        }
        if ((name.equals("uncontended") || name.equals("sporadic") || name.equals("takeover")) && clients != 1) {
            throw new IllegalArgumentException(
                    name + " runs exactly one client (--clients 1); use parallel or contended for more");
        }
        if (name.equals("election") && clients < 2) {
            throw new IllegalArgumentException(
                    "election needs at least 2 candidates (--clients) to hand leadership over, was " + clients);
        }
        if (name.equals("contended") && clients < 2) {
            throw new IllegalArgumentException(
                    "contended needs at least 2 clients to hand the lock over, was " + clients);
        }
    }

    public static Figures run(String name, LoadConfig config) throws Exception {
        check(name, config.clients());
        return switch (name) {
            case "uncontended" -> ParallelWorkload.run("uncontended", config, false);
            case "sporadic" -> ParallelWorkload.sporadic(config);
            case "parallel" -> ParallelWorkload.run("parallel", config, false);
            case "fenced-write" -> ParallelWorkload.run("fenced-write", config, true);
            case "contended" -> ContendedWorkload.run(config);
            case "semaphore" -> SemaphoreWorkload.run(config);
            case "takeover" -> TakeoverWorkload.run(config);
            case "election" -> ElectionWorkload.run(config);
            case "hold" -> HoldWorkload.run(config);
            case "watch" -> WatchWorkload.run(config);
            case "reads" -> ReadsWorkload.run(config);
            default -> throw new IllegalArgumentException("unknown workload " + name);
        };
    }
}
