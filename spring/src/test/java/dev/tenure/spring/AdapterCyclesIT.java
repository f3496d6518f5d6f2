package dev.tenure.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.client.AcquireOptions;
import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureLock;
import dev.tenure.process.RealNode;
import dev.tenure.shedlock.TenureLockProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.javacrumbs.shedlock.core.LockConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What each Java adapter costs over the raw client: acquire + release cycles per second, one
 * thread, one node, through {@code Session.acquire}/{@code Lease.release}, {@link TenureLock},
 * ShedLock's {@link TenureLockProvider} and Spring's {@link TenureLockRegistry} ({@code obtain},
 * {@code lock}, {@code unlock}), in alternating rounds so that a drift of the machine hits all
 * ways alike. The provider asks for a maxHold, so the raw client asking the same is measured too. Prints the medians, their share of the raw client's and the overhead; asserts only
 * that each way completed cycles. It lives beside the Spring adapter, whose class path (Spring's
 * versions) is the one that holds all three adapters. A
 * measurement, not a test of speed: off unless {@code -Dtenure.bench.adapters=true}
 * ({@code -Dtenure.bench.rounds}, {@code -Dtenure.bench.roundMs} set its length).
 */
@EnabledIfSystemProperty(named = "tenure.bench.adapters", matches = "true")
class AdapterCyclesIT {

    @RegisterExtension
    static final RealNode NODE = new RealNode();

    private interface Cycle {
        void run();
    }

    @Test
    void cyclesPerSecondThroughEachAdapterAgainstTheRawClient() {
        int rounds = Integer.getInteger("tenure.bench.rounds", 5);
        long roundMs = Long.getLong("tenure.bench.roundMs", 3_000);
        try (TenureClient client =
                        TenureClient.builder().endpoints(NODE.endpoint()).build();
                Session session = client.openSession();
                TenureLockProvider provider = new TenureLockProvider(client);
                TenureLockRegistry registry = new TenureLockRegistry(client)) {
            TenureLock lock = session.lock("bench-lock");
            LockConfiguration config =
                    new LockConfiguration(Instant.now(), "bench-shedlock", Duration.ofMinutes(10), Duration.ZERO);
            Map<String, Cycle> ways = new LinkedHashMap<>();
            ways.put("raw client", () -> {
                try (Lease lease =
                        session.acquire("bench-raw", AcquireOptions.builder().build())) {
                    lease.token();
                }
            });
            // The provider asks for more than the raw way above: no wait and a maxHold, which the
            // client arms a horizon timer for and the cluster tracks. This way asks the same, so
            // the provider's own cost is its ratio to this one.
            AcquireOptions shedLockOptions = AcquireOptions.builder()
                    .wait(Duration.ZERO)
                    .maxHold(config.getLockAtMostFor())
                    .build();
            ways.put("raw, maxHold", () -> {
                try (Lease lease = session.acquire("bench-raw-max-hold", shedLockOptions)) {
                    lease.token();
                }
            });
            ways.put("TenureLock", () -> {
                lock.lock();
                try {
                    lock.token();
                } finally {
                    lock.unlock();
                }
            });
            ways.put(
                    "TenureLockProvider",
                    () -> provider.lock(config).orElseThrow().unlock());
            ways.put("TenureLockRegistry", () -> {
                TenureRegistryLock registryLock = registry.obtain("bench-registry");
                registryLock.lock();
                try {
                    registryLock.token();
                } finally {
                    registryLock.unlock();
                }
            });
            Map<String, List<Double>> perSecond = new LinkedHashMap<>();
            ways.forEach((name, cycle) -> perSecond.put(name, new ArrayList<>()));
            ways.values().forEach(cycle -> cyclesFor(cycle, Math.min(roundMs, 1_000))); // warm-up
            for (int r = 0; r < rounds; r++) {
                for (var way : ways.entrySet()) {
                    perSecond.get(way.getKey()).add(cyclesFor(way.getValue(), roundMs));
                }
            }
            double raw = median(perSecond.get("raw client"));
            System.out.printf(
                    Locale.ROOT,
                    "# acquire+release, 1 thread, %d rounds of %d ms, alternating; load average %.2f%n",
                    rounds,
                    roundMs,
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                            .getSystemLoadAverage());
            for (var way : perSecond.entrySet()) {
                double m = median(way.getValue());
                assertThat(m).as(way.getKey()).isPositive();
                System.out.printf(
                        Locale.ROOT,
                        "%-20s median %8.1f cycles/s (%5.1f%% of raw, overhead %5.1f%%)  rounds %s%n",
                        way.getKey(),
                        m,
                        100 * m / raw,
                        100 * (raw - m) / raw,
                        way.getValue());
            }
        }
    }

    private static double cyclesFor(Cycle cycle, long ms) {
        long end = System.nanoTime() + Duration.ofMillis(ms).toNanos();
        long start = System.nanoTime();
        long n = 0;
        while (System.nanoTime() < end) {
            cycle.run();
            n++;
        }
        return n / ((System.nanoTime() - start) / 1e9);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }
}
