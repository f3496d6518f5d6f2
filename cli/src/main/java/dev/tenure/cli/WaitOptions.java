package dev.tenure.cli;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** {@code --wait D | --no-wait}: how long an acquire waits in the lock's queue. */
final class WaitOptions {

    @Option(
            names = "--wait",
            description = "Wait at most this long for the lock (default: forever).",
            converter = DurationConverter.class)
    @Nullable
    Duration wait;

    @Option(names = "--no-wait", description = "Fail at once (exit 3) if the lock is held.")
    boolean noWait;

    /** A held lock with --no-wait throws LOCK_HELD, whose message names the holder's token. */
    Lease acquire(Session session, String lock, PolicyOptions policy) {
        if (noWait && wait != null) {
            throw new IllegalArgumentException("--wait and --no-wait exclude each other");
        }
        var options = policy.options();
        if (noWait) {
            options.wait(Duration.ZERO);
        } else if (wait != null) {
            options.wait(wait);
        }
        return session.acquire(lock, options.build());
    }
}
