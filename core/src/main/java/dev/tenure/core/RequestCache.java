package dev.tenure.core;

import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The outcomes of one session's most recent requests, so that a retry after a lost reply is a
 * no-op that returns the original outcome (ZOOKEEPER-1262 is the bug this prevents).
 *
 * <p>Bounded by requestIdCacheMax. Eviction drops the smallest id first, but never a pending
 * wait: its outcome is not decided yet, and forgetting it would let a retry enqueue a second
 * wait. Pending waits are bounded separately by leasesPerSessionMax, so the cache can exceed
 * requestIdCacheMax only while every entry in it is pending.
 *
 * <p>Ids at or below {@link #highestEvictedId()} that are no longer cached are refused as too
 * old: the cache cannot tell a retry of a forgotten request from a new one, and acting twice is
 * the unsafe choice.
 */
final class RequestCache {
    private final NavigableMap<Long, Outcome> outcomes;
    /**
     * The highest try of each cached acquire that was tried more than once; leaves with its
     * outcome. A first try is not kept: no withdrawal can name a try before it, so "tried after
     * try k" (k >= 1) reads the same without it, and most sessions never retry an acquire, so the
     * map stays the shared empty one (about 140 B a session with a lock).
     */
    private SortedMap<Long, Long> attempts;

    private long highestEvictedId;

    RequestCache() {
        this(new TreeMap<>(), new TreeMap<>(), 0);
    }

    RequestCache(NavigableMap<Long, Outcome> outcomes, SortedMap<Long, Long> attempts, long highestEvictedId) {
        this.outcomes = outcomes;
        attempts.values().removeIf(a -> a <= 1); // a snapshot from before first tries were dropped
        this.attempts = attempts.isEmpty() ? Collections.emptySortedMap() : attempts;
        this.highestEvictedId = highestEvictedId;
    }

    /** Try {@code attempt} of the cached request {@code requestId} was applied. */
    void attempted(long requestId, long attempt) {
        if (attempt > 1 && outcomes.containsKey(requestId)) {
            if (attempts.isEmpty()) {
                attempts = new TreeMap<>();
            }
            attempts.merge(requestId, attempt, Math::max);
        }
    }

    /** True if a try of {@code requestId} later than {@code attempt} was applied. */
    boolean triedAfter(long requestId, long attempt) {
        return attempts.getOrDefault(requestId, 0L) > attempt;
    }

    long latestAttempt(long requestId) {
        return attempts.getOrDefault(requestId, 0L);
    }

    /** Ascending by request id; read-only. */
    SortedMap<Long, Long> attempts() {
        return Collections.unmodifiableSortedMap(attempts);
    }

    @Nullable
    Outcome get(long requestId) {
        return outcomes.get(requestId);
    }

    boolean isTooOld(long requestId) {
        return requestId <= highestEvictedId && !outcomes.containsKey(requestId);
    }

    /**
     * True if a request newer than {@code requestId} was granted {@code token}: the session
     * claimed that grant again (a re-entrant acquire) after it sent {@code requestId}. Request ids
     * grow in the order a client sends them, so an older request that would end the grant (a
     * release, a withdrawn wait) reached the log late and must not end what the newer one holds.
     */
    boolean grantedAfter(long requestId, long token) {
        for (Outcome o : outcomes.tailMap(requestId, false).values()) {
            if (o.grantedToken() == token) {
                return true;
            }
        }
        return false;
    }

    long highestEvictedId() {
        return highestEvictedId;
    }

    int size() {
        return outcomes.size();
    }

    /** Ascending by request id; read-only. */
    SortedMap<Long, Outcome> entries() {
        return Collections.unmodifiableSortedMap(outcomes);
    }

    /** For snapshot restore: the same pending outcome, sharing the lock record's name. */
    void replacePending(long requestId, Outcome outcome) {
        Outcome now = Objects.requireNonNull(outcomes.get(requestId), "only a cached request's outcome is replaced");
        if (now.pending() && outcome.pending()) {
            outcomes.put(requestId, outcome);
        }
    }

    void remember(long requestId, Outcome outcome, int requestIdCacheMax) {
        outcomes.put(requestId, outcome);
        trim(requestIdCacheMax);
    }

    private void trim(int requestIdCacheMax) {
        while (outcomes.size() > requestIdCacheMax) {
            Long victim = smallestSettledId();
            if (victim == null) {
                return; // only pending waits left; they leave when resolved
            }
            outcomes.remove(victim);
            if (!attempts.isEmpty() && attempts.remove(victim) != null && attempts.isEmpty()) {
                attempts = Collections.emptySortedMap();
            }
            highestEvictedId = Math.max(highestEvictedId, victim);
        }
    }

    private @Nullable Long smallestSettledId() {
        for (Map.Entry<Long, Outcome> e : outcomes.entrySet()) {
            if (!e.getValue().pending()) {
                return e.getKey();
            }
        }
        return null;
    }
}
