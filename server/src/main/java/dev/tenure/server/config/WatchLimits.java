package dev.tenure.server.config;

/**
 * What one node gives watches (the Watch rpc): each bound named, with a default, and a clear
 * error past it.
 *
 * @param watchersMax watches this node serves at once; one more is refused RESOURCE_EXHAUSTED,
 *     naming the limit
 * @param revisionsKeptMax changes this node keeps for watches to resume from (one record each,
 *     about 100 bytes and its name); a watch that resumes from an older revision, or that falls
 *     further behind, is refused REVISION_COMPACTED and lists again
 */
public record WatchLimits(int watchersMax, int revisionsKeptMax) {
    /** Each watch costs the node a stream and a cursor: ten thousand fit well in its heap. */
    public static final int WATCHERS_MAX = 10_000;

    /** About 10 MiB of change records: minutes of changes at the rates a node sustains. */
    public static final int REVISIONS_KEPT_MAX = 100_000;

    public WatchLimits {
        if (watchersMax < 1) {
            throw new IllegalArgumentException("watchersMax must be at least 1, was " + watchersMax);
        }
        if (revisionsKeptMax < 1) {
            throw new IllegalArgumentException("revisionsKeptMax must be at least 1, was " + revisionsKeptMax);
        }
    }

    public static WatchLimits defaults() {
        return new WatchLimits(WATCHERS_MAX, REVISIONS_KEPT_MAX);
    }
}
