package dev.tenure.server.guard;

import static dev.tenure.server.guard.EntryCosts.*;

import dev.tenure.core.Limits;
import dev.tenure.server.config.ServerConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a node's limits let its heap hold at most, kind by kind, and whether that fits the heap it
 * runs in. Each line is a count limit times what one record of the kind costs ({@link
 * EntryCosts}, measured) with its names at their byte limits, plus the byte budgets; the state is
 * counted twice over where a snapshot image of it is in the heap beside it (while the leader
 * writes one, while a restart reads one back). A node whose estimate does not fit refuses to start
 * ({@link #require}): it would otherwise run out of memory when clients fill what its limits
 * allow, instead of refusing their writes.
 *
 * <p>Names are counted one byte per UTF-8 byte, as a name in ASCII or Latin-1 takes; a name of
 * characters beyond Latin-1 takes up to twice that in the heap. Client names and principals are
 * counted once per session, at their byte limits: the records that name them (history records,
 * keys) share the session's string, and a snapshot writes each once. A state that remembers more
 * distinct ones than it has sessions (in histories and keys, after their sessions ended) takes
 * more than the estimate; so do requests in flight beyond {@link EntryCosts#CALLS_IN_FLIGHT}.
 * What the estimate misses, the heap guard ({@link HeapGuard}) refuses writes for before the heap
 * runs out.
 */
public final class MemoryBudget {

    /**
     * Distinct (lock, target) series of the node's stale-write counter ({@code NodeMetrics}); the
     * budget counts each. Defined here, where the heap is budgeted, so the budget needs nothing of
     * the admin endpoint.
     */
    public static final int STALE_SERIES_MAX = 1_000;

    /** The share of the old generation (where the state lives) the estimate may fill: the rest is the collector's room. */
    static final double SHARE = 0.9;

    /** One kind of what the heap holds, the limits that bound it, and its bytes in the heap and in a snapshot image. */
    public record Line(String kind, String bound, long heapBytes, long snapshotBytes) {
        long bytes() {
            return heapBytes + snapshotBytes;
        }
    }

    /** Every line, and the heap they must fit in. */
    public record Estimate(List<Line> lines, long capacityBytes, long heapMaxBytes) {
        public long bytes() {
            return lines.stream().mapToLong(Line::bytes).sum();
        }

        /** What the estimate may fill: {@link #SHARE} of the old generation. */
        public long allowedBytes() {
            return (long) (capacityBytes * SHARE);
        }

        public boolean fits() {
            return bytes() <= allowedBytes();
        }

        /** The line that takes the most: the one to lower first. */
        public Line largest() {
            return lines.stream().max(Comparator.comparingLong(Line::bytes)).orElseThrow();
        }

        /** One line: the estimate, the heap, the largest kind and its limits, and what to change. */
        public String refusal() {
            Line top = largest();
            return "the limits can fill " + mib(bytes()) + " of heap, over the " + mib(allowedBytes())
                    + " this node may"
                    + " fill (" + (int) (SHARE * 100) + "% of the " + mib(capacityBytes) + " old generation of -Xmx "
                    + mib(heapMaxBytes) + "); the most is " + top.kind() + " (" + top.bound() + "): "
                    + mib(top.bytes()) + ". Give the JVM more heap (-Xmx in TENURE_JAVA_OPTS) or lower a limit"
                    + " (--limit NAME=VALUE; docs/memory.md), or start anyway with --no-heap-check";
        }

        /** The estimate line by line, for the start's log and the docs. */
        public List<String> table() {
            List<String> out = new ArrayList<>();
            for (Line l : lines) {
                out.add(String.format(
                        "%-12s %10s heap %10s snapshot  %s",
                        l.kind(), mib(l.heapBytes()), mib(l.snapshotBytes()), l.bound()));
            }
            out.add(String.format(
                    "%-12s %10s of %s allowed (%s old generation, -Xmx %s)",
                    "total", mib(bytes()), mib(allowedBytes()), mib(capacityBytes), mib(heapMaxBytes)));
            return out;
        }
    }

    private MemoryBudget() {}

    /** The estimate for {@code config} against this JVM's heap. */
    public static Estimate of(ServerConfig config) {
        return of(config.limits(), HeapCapacity.oldGenerationMaxBytes(), HeapCapacity.heapMaxBytes());
    }

    /** The estimate for {@code l} against an old generation of {@code capacityBytes} in a heap of {@code heapMaxBytes}. */
    public static Estimate of(Limits l, long capacityBytes, long heapMaxBytes) {
        List<Line> lines = new ArrayList<>();
        lines.add(new Line("node", "an idle node", BASELINE, 0));
        lines.add(sessions(l));
        lines.add(locks(l));
        lines.add(new Line(
                "waiters", "waitersMax " + l.waitersMax(), l.waitersMax() * WAITER, l.waitersMax() * WAITER_SNAPSHOT));
        lines.add(kv(l));
        lines.add(new Line(
                "checkpoints",
                "checkpointTotalBytesMax " + l.checkpointTotalBytesMax(),
                l.checkpointTotalBytesMax(),
                // A lease and its lock may each write the same checkpoint into an image.
                2 * l.checkpointTotalBytesMax()));
        lines.add(elections(l));
        lines.add(new Line(
                "calls",
                CALLS_IN_FLIGHT + " in flight (assumed), each with a value of valueBytesMax " + l.valueBytesMax(),
                CALLS_IN_FLIGHT * (CALL + l.valueBytesMax()),
                0));
        lines.add(new Line("metrics", STALE_SERIES_MAX + " stale-write series", STALE_SERIES_MAX * METRICS_SERIES, 0));
        return new Estimate(List.copyOf(lines), capacityBytes, heapMaxBytes);
    }

    /** Each session with its names and a full request cache; the gateway's share too. */
    private static Line sessions(Limits l) {
        long names = (long) l.clientNameBytesMax() + l.principal().nameBytesMax();
        long perSession =
                SESSION + GATEWAY_SESSION + 2 * INTERNED_NAME + names + l.requestIdCacheMax() * CACHED_OUTCOME;
        long perSessionImage = SESSION_SNAPSHOT + names + l.requestIdCacheMax() * CACHED_OUTCOME_SNAPSHOT;
        return new Line(
                "sessions",
                "sessionsMax " + l.sessionsMax() + " x requestIdCacheMax " + l.requestIdCacheMax(),
                l.sessionsMax() * perSession,
                l.sessionsMax() * perSessionImage);
    }

    /**
     * Every lock record, busy or idle, with its name, a full history, the longest stale-write
     * target ("kv:" and a key) and its checkpoints' records; each busy one holding a lease.
     */
    private static Line locks(Limits l) {
        long records = (long) l.locksMax() + l.idleLocksMax();
        long target = 3L + l.keyBytesMax();
        long perLock = LOCK
                + STRING
                + l.lockNameBytesMax()
                + STRING
                + target
                + l.historyPerLockMax() * TENURE_RECORD
                + 2 * CHECKPOINT;
        long perLockImage = LOCK_SNAPSHOT
                + 2L * l.lockNameBytesMax() // once more in the idle order
                + target
                + l.historyPerLockMax() * TENURE_RECORD_SNAPSHOT
                + 2 * CHECKPOINT_SNAPSHOT;
        return new Line(
                "locks",
                "locksMax " + l.locksMax() + " + idleLocksMax " + l.idleLocksMax() + ", historyPerLockMax "
                        + l.historyPerLockMax(),
                records * perLock + (long) l.locksMax() * LEASE,
                records * perLockImage + (long) l.locksMax() * LEASE_SNAPSHOT);
    }

    /**
     * The election values every lease and waiter carries, summed: electionValueTotalBytesMax, or
     * less when every lease (locksMax) and waiter (waitersMax) at electionValueBytesMax is less.
     * Kept once in the heap and written once in an image.
     */
    private static Line elections(Limits l) {
        long each = ((long) l.locksMax() + l.waitersMax()) * l.electionValueBytesMax();
        long bytes = Math.min(each, l.electionValueTotalBytesMax());
        return new Line("elections", "electionValueTotalBytesMax " + l.electionValueTotalBytesMax(), bytes, bytes);
    }

    /**
     * kvBytesMax holds every key's, value's and lock name's bytes; kvKeysMax bounds the records
     * around them. Any key may be ephemeral, so each is counted with an entry in its session's
     * index, and every session that can hold one with its index (the index is derived from the
     * entries, so a snapshot image does not carry it).
     */
    private static Line kv(Limits l) {
        long keys = l.kvKeysMax();
        long indexed = l.ephemeralKeysPerSessionMax() == 0 ? 0 : keys;
        long indexes = Math.min(indexed, l.sessionsMax());
        return new Line(
                "kv",
                "kvKeysMax " + keys + ", kvBytesMax " + l.kvBytesMax() + ", ephemeral index of up to " + indexes
                        + " sessions",
                keys * (KV_ENTRY + STRING) + l.kvBytesMax() + indexed * EPHEMERAL_KEY + indexes * EPHEMERAL_SESSION,
                keys * KV_ENTRY_SNAPSHOT + l.kvBytesMax());
    }

    /**
     * Refuses to start a node whose limits do not fit its heap: throws {@link IllegalStateException}
     * with {@link Estimate#refusal()}.
     */
    public static Estimate require(ServerConfig config) {
        Estimate e = of(config);
        if (!e.fits()) {
            throw new IllegalStateException(e.refusal());
        }
        return e;
    }

    static String mib(long bytes) {
        return String.format("%.1f MiB", bytes / (double) (1 << 20));
    }
}
