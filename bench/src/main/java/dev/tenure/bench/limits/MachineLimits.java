package dev.tenure.bench.limits;

import dev.tenure.bench.load.LoadConfig;
import dev.tenure.bench.report.Figures;
import dev.tenure.bench.report.Report;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The limits of this machine that bound Tenure's figures, each measured the same way every time:
 * the disk's fsync, the loopback round trip (raw TCP and gRPC), Aeron Cluster with an echo
 * service on 1 and 3 members, the core's apply rate and its heap per session holding a lock.
 * Run by {@code tenure bench limits}.
 */
public final class MachineLimits {

    private MachineLimits() {}

    /**
     * Prints each limit as soon as it is measured.
     *
     * @param dataDir where the fsync file and the Aeron members' logs go: use the filesystem of
     *     the server's data directory
     * @param config warm-up and duration of each measurement; {@code clients} is the concurrency
     *     of the throughput figures
     */
    public static void run(Path dataDir, LoadConfig config, Report report) throws Exception {
        report.print(FsyncLimit.run(dataDir, config.duration()));
        report.print(TcpLimit.run(config));
        for (Figures f : GrpcEchoLimit.run(config, config.clients())) {
            report.print(f);
        }
        for (int nodes : new int[] {1, 3}) {
            for (Figures f : AeronEchoLimit.run(nodes, dataDir, config.warmup(), config.duration(), config.clients())) {
                report.print(f);
            }
        }
        report.print(coreApply(config.warmup(), config.duration()));
        report.print(CoreFootprint.run(20_000));
    }

    /**
     * A plain timed loop, no per-cycle timing (a cycle takes about a microsecond, so timing each
     * would cost as much as the work). The JMH benchmark {@code CoreApplyBenchmark} measures the
     * same cycle with forks and iterations; this figure is a quick cross-check.
     */
    static Figures coreApply(Duration warmup, Duration duration) {
        CoreCycle cycle = new CoreCycle();
        long sink = 0;
        long warmEnd = System.nanoTime() + warmup.toNanos();
        while (System.nanoTime() < warmEnd) {
            sink += cycle.acquireRelease();
        }
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long cycles = 0;
        long now = start;
        while (now < end) {
            for (int i = 0; i < 1_000; i++) {
                sink += cycle.acquireRelease();
            }
            cycles += 1_000;
            now = System.nanoTime();
        }
        return Figures.of("limit-core-apply", 1, cycles, (now - start) / 1e9, Figures.newHistogram())
                .with("latency", "not timed per cycle")
                .with("checksum", sink & 0xff);
    }
}
