package dev.tenure.server.guard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Limits;
import dev.tenure.core.Policy;
import dev.tenure.core.Result;
import dev.tenure.core.SecretHash;
import dev.tenure.core.StateMachine;
import dev.tenure.server.admin.NodeMetrics;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * Measures what one record of each kind costs in the heap and in a snapshot image, and fails if
 * any costs more than {@link EntryCosts} says: the memory budget multiplies these figures by the
 * limits, so an estimate below what a record really takes would let a node start with limits its
 * heap cannot hold. Each kind is filled at its largest shape (names at their byte limits), twice:
 * the cost is the growth of the live heap (after a full collection) over the second fill, divided
 * by its records, so what the first fill loads once (classes, caches) is not counted. The figures
 * are printed; docs/memory.md has them.
 */
class MemoryCostsTest {
    private static final long NOW = 1_000;
    private static final long TTL = 3_600_000;

    /** Room for everything the test fills; the byte limits at their defaults decide the names. */
    private static final Limits ROOMY = roomy();

    private static Limits roomy() {
        Limits l = Limits.defaults();
        for (String name : List.of(
                "sessionsMax",
                "leasesPerSessionMax",
                "locksMax",
                "waitersMax",
                "kvKeysMax",
                "idleLocksMax",
                "sessionsPerPrincipalMax",
                "leasesPerPrincipalMax",
                "waitersPerPrincipalMax",
                "kvKeysPerPrincipalMax")) {
            l = l.with(name, 1_000_000);
        }
        return l.with("kvBytesMax", 1L << 40)
                .with("kvBytesPerPrincipalMax", 1L << 40)
                .with("checkpointTotalBytesMax", 1L << 40);
    }

    private final StateMachine machine = new StateMachine(ROOMY);
    private final List<Event> events = new ArrayList<>();

    /** What one record costs: heap and snapshot bytes per record of the second of two equal fills. */
    private record Cost(String kind, double heap, double snapshot) {
        Cost print() {
            System.out.printf("MemoryCostsTest: %-40s %8.1f B heap %8.1f B snapshot%n", kind, heap, snapshot);
            return this;
        }
    }

    private Cost measure(String kind, int n, IntConsumer add) {
        for (int i = 0; i < n; i++) {
            add.accept(i);
        }
        long heap = liveHeap();
        long image = machine.snapshot().length;
        for (int i = n; i < 2 * n; i++) {
            add.accept(i);
        }
        drain();
        long after = liveHeap();
        return new Cost(kind, (after - heap) / (double) n, (machine.snapshot().length - image) / (double) n).print();
    }

    /**
     * The live heap: the least of several readings, each right after a full collection. A reading
     * can include what another thread allocated since the collection (the JVM's own threads do,
     * around collections), by up to megabytes; the least one includes the least of it.
     */
    private static long liveHeap() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            ManagementFactory.getMemoryMXBean().gc();
            least = Math.min(
                    least,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    private void drain() {
        machine.drainEvents(events);
        events.clear();
    }

    private Result apply(Command c) {
        Result r = machine.apply(NOW, c);
        drain();
        return r;
    }

    private long open(String client, String principal) {
        return ((Result.SessionOpened) apply(new Command.OpenSession(TTL, client, SecretHash.NONE, principal)))
                .sessionId();
    }

    private long grant(long session, long requestId, String lock) {
        return ((Result.Granted) apply(new Command.Acquire(session, requestId, lock, 0)))
                .grant()
                .token();
    }

    /** {@code bytes} ASCII characters, distinct for each {@code i}. */
    private static String name(String prefix, long i, int bytes) {
        StringBuilder b = new StringBuilder(prefix).append(i).append('-');
        while (b.length() < bytes) {
            b.append('x');
        }
        return b.toString();
    }

    @Test
    void aSessionCostsNoMoreThanTheBudgetSays() {
        Cost plain = measure("session", 20_000, i -> open("c", ""));
        assertThat(plain.heap()).isLessThanOrEqualTo(EntryCosts.SESSION);
        assertThat(plain.snapshot()).isLessThanOrEqualTo(EntryCosts.SESSION_SNAPSHOT);
        int names = ROOMY.clientNameBytesMax() + ROOMY.principal().nameBytesMax();
        Cost named = measure(
                "session, longest distinct names",
                // As many as the plain ones: what other threads of a shared test JVM allocate
                // meanwhile weighs a fourth as much on each.
                20_000,
                i -> open(
                        name("c", i, ROOMY.clientNameBytesMax()),
                        name("p", i, ROOMY.principal().nameBytesMax())));
        assertThat(named.heap())
                .isLessThanOrEqualTo((double) (EntryCosts.SESSION + 2 * EntryCosts.INTERNED_NAME + names));
        assertThat(named.snapshot()).isLessThanOrEqualTo((double) (EntryCosts.SESSION_SNAPSHOT + names));
    }

    @Test
    void aCachedOutcomeCostsNoMoreThanTheBudgetSays() {
        long holder = open("h", "");
        String lock = name("L", 0, ROOMY.lockNameBytesMax());
        grant(holder, 1, lock);
        int cache = ROOMY.requestIdCacheMax();
        long[] sessions = new long[4_000];
        for (int s = 0; s < sessions.length; s++) {
            sessions[s] = open("c", "");
        }
        // Each session's cache filled with refusals that name the longest lock: the longest
        // messages a cache keeps (cut to their first characters).
        Cost refusal = measure(
                "cached refusal",
                sessions.length / 2 * cache,
                i -> apply(new Command.Acquire(sessions[i / cache], 1 + i % cache, lock, 0)));
        assertThat(refusal.heap()).isLessThanOrEqualTo(EntryCosts.CACHED_OUTCOME);
        assertThat(refusal.snapshot()).isLessThanOrEqualTo(EntryCosts.CACHED_OUTCOME_SNAPSHOT + 3 * 32);
    }

    @Test
    void aLockCostsNoMoreThanTheBudgetSays() {
        int nameBytes = ROOMY.lockNameBytesMax();
        // 500 locks a holder: a session's invariants are checked over all it holds at every step.
        long[] holders = new long[80];
        for (int h = 0; h < holders.length; h++) {
            holders[h] = open("h", "");
        }
        Cost held = measure(
                "held lock, longest name", 20_000, i -> grant(holders[i / 500], i % 500 + 1, name("L", i, nameBytes)));
        assertThat(held.heap())
                .isLessThanOrEqualTo((double) (EntryCosts.LOCK + EntryCosts.STRING + nameBytes + EntryCosts.LEASE));
        assertThat(held.snapshot())
                .isLessThanOrEqualTo((double) (EntryCosts.LOCK_SNAPSHOT + nameBytes + EntryCosts.LEASE_SNAPSHOT));
        // Idle locks with a stale write of the longest target and a checkpoint of one byte.
        long other = open("o", "");
        String key = name("k", 0, ROOMY.keyBytesMax());
        Cost idle = measure("idle lock, longest stale target, checkpoint", 8_000, i -> {
            String lock = name("I", i, nameBytes);
            long token = grant(other, 2 * i + 1, lock);
            apply(new Command.WriteCheckpoint(0, 0, lock, token, new byte[1]));
            apply(new Command.Put(0, 0, key, new byte[0], lock, token - 1, false));
            apply(new Command.Release(other, 2 * i + 2, lock, token, false));
        });
        long target = 3L + ROOMY.keyBytesMax();
        assertThat(idle.heap()).isLessThanOrEqualTo((double) (EntryCosts.LOCK
                + 2 * EntryCosts.STRING
                + nameBytes
                + target
                + EntryCosts.TENURE_RECORD
                + EntryCosts.CHECKPOINT
                + 1));
        assertThat(idle.snapshot()).isLessThanOrEqualTo((double) (EntryCosts.LOCK_SNAPSHOT
                + 2L * nameBytes // once more in the idle order
                + target
                + EntryCosts.TENURE_RECORD_SNAPSHOT
                + EntryCosts.CHECKPOINT_SNAPSHOT
                + 1));
    }

    @Test
    void aPastTenureCostsNoMoreThanTheBudgetSays() {
        int history = ROOMY.historyPerLockMax();
        long a = open("a", "");
        long[] tenures = {0};
        // Locks whose history is full: every tenure past the first is one more record.
        Cost record = measure("past tenure", 6_000 * history, i -> {
            String lock = "H" + i / history;
            long token = grant(a, ++tenures[0], lock);
            apply(new Command.Release(a, ++tenures[0], lock, token, false));
        });
        // A lock's first record makes the lock idle too: the locks' own costs are in the average,
        // one lock per historyPerLockMax records.
        assertThat(record.heap()).isLessThanOrEqualTo(EntryCosts.TENURE_RECORD + EntryCosts.LOCK / (double) history);
        assertThat(record.snapshot())
                .isLessThanOrEqualTo(EntryCosts.TENURE_RECORD_SNAPSHOT + EntryCosts.LOCK_SNAPSHOT / (double) history);
    }

    @Test
    void aWaiterCostsNoMoreThanTheBudgetSays() {
        long holder = open("h", "");
        int locks = 40;
        for (int l = 0; l < locks; l++) {
            grant(holder, l + 1, "w" + l);
        }
        long[] sessions = new long[1_000];
        for (int s = 0; s < sessions.length; s++) {
            sessions[s] = open("c", "");
        }
        Cost waiter = measure(
                "waiter with a deadline",
                sessions.length * locks / 2,
                i -> apply(new Command.Acquire(
                        sessions[i % sessions.length],
                        1 + i / sessions.length,
                        "w" + i / sessions.length,
                        60_000,
                        Policy.NONE)));
        assertThat(waiter.heap()).isLessThanOrEqualTo(EntryCosts.WAITER);
        assertThat(waiter.snapshot()).isLessThanOrEqualTo(EntryCosts.WAITER_SNAPSHOT);
    }

    @Test
    void aKvEntryCostsNoMoreThanTheBudgetSaysBesidesItsBytes() {
        Cost entry = measure(
                "KV entry, 8-byte key, empty value",
                100_000,
                i -> apply(new Command.Put(0, 0, name("k", i, 8), new byte[0], null, 0, false, "p")));
        assertThat(entry.heap()).isLessThanOrEqualTo(EntryCosts.KV_ENTRY + EntryCosts.STRING + 8);
        assertThat(entry.snapshot()).isLessThanOrEqualTo(EntryCosts.KV_ENTRY_SNAPSHOT + 8 + 1);
    }

    /**
     * An ephemeral key is a KV entry and an entry in its session's index of ephemeral keys; each
     * session that holds one adds its index. One key per session is the index's largest share.
     */
    @Test
    void anEphemeralKeyAndItsSessionsIndexCostNoMoreThanTheBudgetSays() {
        int n = 20_000;
        long[] sessions = new long[2 * n];
        for (int s = 0; s < sessions.length; s++) {
            sessions[s] = open("c", "");
        }
        Cost entry = measure(
                "ephemeral KV entry, one per session",
                n,
                i -> apply(new Command.Put(sessions[i], 1, name("e", i, 8), new byte[0], null, 0, true, "")));
        assertThat(entry.heap())
                .isLessThanOrEqualTo(EntryCosts.KV_ENTRY
                        + EntryCosts.STRING
                        + 8
                        + EntryCosts.EPHEMERAL_KEY
                        + EntryCosts.EPHEMERAL_SESSION);
        assertThat(entry.snapshot()).isLessThanOrEqualTo(EntryCosts.KV_ENTRY_SNAPSHOT + 8 + 1);
        Cost many = measure(
                "ephemeral KV entry, 1,000 in one session",
                1_000,
                i -> apply(new Command.Put(sessions[0], 2 + i, name("m", i, 8), new byte[0], null, 0, true, "")));
        assertThat(many.heap())
                .isLessThanOrEqualTo(EntryCosts.KV_ENTRY + EntryCosts.STRING + 8 + EntryCosts.EPHEMERAL_KEY);
    }

    @Test
    void theLabelledSeriesOfTheMetricsCostNoMoreThanTheBudgetSays() {
        try (NodeMetrics metrics = new NodeMetrics()) {
            long before = liveHeap();
            // Every labelled series the node can make: an acquire timer per result and per gRPC
            // status, and the stale writes by target. No label takes user data any more.
            int series = 0;
            for (dev.tenure.api.v1.Code code : dev.tenure.api.v1.Code.values()) {
                if (code != dev.tenure.api.v1.Code.UNRECOGNIZED) {
                    metrics.acquireAnswered(code.name(), 1_000);
                    series++;
                }
            }
            for (io.grpc.Status.Code code : io.grpc.Status.Code.values()) {
                metrics.acquireAnswered(code.name(), 1_000);
                series++;
            }
            metrics.staleWrite("kv:" + name("k", 0, Limits.defaults().keyBytesMax()));
            String scrape = metrics.scrape();
            long after = liveHeap();
            // A scrape is built whole in the heap: its text (and the builder's copy) counts too.
            double cost = (after - before) + 3.0 * scrape.length();
            new Cost("labelled metrics series, " + series + " (and the scrape text)", cost, 0).print();
            assertThat(cost).isLessThanOrEqualTo((double) MemoryBudget.STALE_SERIES_MAX * EntryCosts.METRICS_SERIES);
        }
    }
}
