package dev.tenure.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Limits;
import org.junit.jupiter.api.Test;

/** What the budget counts, and that the default limits fit the heap `bin/tenure server` gives a node. */
class MemoryBudgetTest {
    /** -Xmx512m, bin/tenure's for a node. */
    private static final long HEAP_512M = 512L << 20;
    /**
     * The old generation of that heap with the serial collector and bin/tenure's young generation
     * cap, as the JVM sizes it (its pool's maximum, read from a `-XX:+UseSerialGC -Xmx512m
     * -Xms32m -XX:MaxNewSize=32m` JVM): 480 MiB.
     */
    private static final long OLD_512M = 503_316_480L;

    @Test
    void theDefaultLimitsFitTheHeapBinTenureGivesANode() {
        MemoryBudget.Estimate e = MemoryBudget.of(Limits.defaults(), OLD_512M, HEAP_512M);
        e.table().forEach(line -> System.out.println("MemoryBudgetTest: " + line));
        assertThat(e.fits()).as(e.refusal()).isTrue();
    }

    @Test
    void limitsThatHoldMoreThanTheHeapAreRefusedNamingTheLargestKindTheHeapAndWhatToChange() {
        // What every node allowed before the budget: 100,000 keys of up to 64 KiB, unbounded bytes.
        Limits old = Limits.defaults().with("kvKeysMax", 100_000).with("kvBytesMax", 100_000L * 65_536);
        MemoryBudget.Estimate e = MemoryBudget.of(old, OLD_512M, HEAP_512M);
        assertThat(e.fits()).isFalse();
        assertThat(e.largest().kind()).isEqualTo("kv");
        assertThat(e.refusal())
                .startsWith("the limits can fill 12747.9 MiB of heap,")
                .contains(
                        "over the 432.0 MiB this node may fill (90% of the 480.0 MiB old generation of -Xmx 512.0 MiB)")
                .contains(
                        "the most is kv (kvKeysMax 100000, kvBytesMax 6553600000, ephemeral index of up to 10000 sessions)")
                .contains("-Xmx in TENURE_JAVA_OPTS")
                .contains("--limit NAME=VALUE");
    }

    @Test
    void everyKindGrowsWithTheLimitsThatBoundIt() {
        Limits d = Limits.defaults();
        long base = MemoryBudget.of(d, OLD_512M, HEAP_512M).bytes();
        for (String limit : new String[] {
            "sessionsMax",
            "requestIdCacheMax",
            "clientNameBytesMax",
            "principalNameBytesMax",
            "locksMax",
            "idleLocksMax",
            "historyPerLockMax",
            "lockNameBytesMax",
            "keyBytesMax",
            "waitersMax",
            "kvKeysMax",
            "kvBytesMax",
            "checkpointTotalBytesMax",
            "electionValueTotalBytesMax",
            "valueBytesMax"
        }) {
            long more = MemoryBudget.of(d.with(limit, d.get(limit) * 2), OLD_512M, HEAP_512M)
                    .bytes();
            assertThat(more).as(limit).isGreaterThan(base);
        }
    }
}
