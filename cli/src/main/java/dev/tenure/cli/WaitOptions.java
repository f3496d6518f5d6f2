package dev.tenure.cli;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import java.time.Duration;
import picocli.CommandLine.Option;

/** {@code --wait D | --no-wait}: how long an acquire waits in the lock's queue. */
final class WaitOptions {

    @Option(
            names = "--wait",
            description = "Wait at most this long for the lock (default: forever).",
            converter = DurationConverter.class)
    Duration wait;

    @Option(names = "--no-wait", description = "Fail at once (exit 3) if the lock is held.")
    boolean noWait;

    Lease acquire(Session session, String lock) {
        if (noWait && wait != null) {
            throw new IllegalArgumentException("--wait and --no-wait exclude each other");
        }
        if (noWait) {
            return session.acquire(lock, Duration.ZERO); // LockHeldException names the holder's token
        }
        return wait == null ? session.acquire(lock) : session.acquire(lock, wait);
    }
}
