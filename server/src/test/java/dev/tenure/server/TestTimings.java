package dev.tenure.server;

import dev.tenure.server.config.ServerConfig;
import java.time.Duration;

/**
 * The timings of the nodes that tests start in their own JVM: renewals written within 5 ms, a
 * request that waits up to 5 s for a busy test machine, and a leader replaced after a second of
 * silence. Everything else is as {@code tenure server} starts.
 */
public final class TestTimings {
    private TestTimings() {}

    public static void apply(ServerConfig.Changes c) {
        c.keepAliveBatch = Duration.ofMillis(5);
        c.requestTimeout = Duration.ofSeconds(5);
        c.leaderHeartbeatTimeout = Duration.ofSeconds(1);
    }
}
