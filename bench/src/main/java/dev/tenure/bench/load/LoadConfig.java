package dev.tenure.bench.load;

import dev.tenure.client.spi.ClientTls;
import dev.tenure.core.Limits;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How hard and how long a workload runs. Every value is checked against a named limit here, so a
 * bad option fails before any connection is opened, with a message that names the option and
 * the limit.
 *
 * @param endpoints host:port[,host:port...] of the nodes the clients talk to
 * @param clients concurrent clients; each has its own connection and session (for {@code hold}:
 *     the connections its sessions are spread over)
 * @param warmup how long the load runs before measuring starts
 * @param duration how long it is measured (for {@code hold}: how long the sessions are kept alive)
 * @param rounds kill-and-takeover rounds of {@code takeover}, hand-overs of {@code election}
 * @param sessions sessions, each holding one lock, of {@code hold}
 * @param ttl every bench session's TTL
 * @param disconnectGrace every bench session's disconnect grace; null for the client's default
 * @param serverPids the server processes whose CPU and memory {@code hold} reads; may be empty
 * @param progress where a progress line goes every few seconds on long runs
 * @param tls TLS of every bench client's connection; null for plaintext
 * @param watchers watches of the workload's locks, on connections of their own ({@code watch}:
 *     the watches its grants are timed at; {@code hold}: watches attached to show what they cost
 *     the server; the other workloads take none)
 * @param locksPerSession locks each session of {@code hold} holds (1 unless sizing the node per lock)
 */
public record LoadConfig(
        String endpoints,
        int clients,
        Duration warmup,
        Duration duration,
        int rounds,
        int sessions,
        Duration ttl,
        @Nullable Duration disconnectGrace,
        List<Long> serverPids,
        PrintStream progress,
        @Nullable ClientTls tls,
        int watchers,
        int locksPerSession) {

    public static final int CLIENTS_MAX = 1024;
    /** The node's own default watch limit (watchersMax); a node given more takes more. */
    public static final int WATCHERS_MAX = 10_000;
    /** Watches of the {@code watch} workload when {@code --watchers} is not given. */
    public static final int WATCH_WATCHERS_DEFAULT = 100;

    public static final Duration DURATION_MIN = Duration.ofSeconds(1);
    public static final Duration DURATION_MAX = Duration.ofHours(1);
    public static final Duration WARMUP_MAX = Duration.ofMinutes(10);
    public static final int ROUNDS_MAX = 10_000;
    /** The server's own default session limit (core Limits.sessionsMax); a node given more takes more. */
    public static final int SESSIONS_MAX = Limits.defaults().sessionsMax();
    /** The server's own default limit of leases per session (core Limits.leasesPerSessionMax). */
    public static final int LOCKS_PER_SESSION_MAX = Limits.defaults().leasesPerSessionMax();

    public static final Duration TTL_MIN = Duration.ofSeconds(1);
    public static final Duration TTL_MAX = Duration.ofHours(1);

    public LoadConfig {
        Objects.requireNonNull(endpoints, "endpoints");
        Objects.requireNonNull(progress, "progress");
        serverPids = List.copyOf(serverPids);
        if (endpoints.isBlank()) {
            throw new IllegalArgumentException("--endpoints must name at least one host:port");
        }
        between("--clients", clients, 1, CLIENTS_MAX);
        between("--rounds", rounds, 1, ROUNDS_MAX);
        between("--sessions", sessions, 1, SESSIONS_MAX);
        between("--duration", duration, DURATION_MIN, DURATION_MAX);
        between("--warmup", warmup, Duration.ZERO, WARMUP_MAX);
        between("--ttl", ttl, TTL_MIN, TTL_MAX);
        between("--watchers", watchers, 0, WATCHERS_MAX);
        between("--locks-per-session", locksPerSession, 1, LOCKS_PER_SESSION_MAX);
        if (disconnectGrace != null && !disconnectGrace.isZero()) {
            between("--disconnect-grace", disconnectGrace, Duration.ofMillis(100), ttl);
        }
    }

    /** A run without watches (the workloads that take none). */
    public LoadConfig(
            String endpoints,
            int clients,
            Duration warmup,
            Duration duration,
            int rounds,
            int sessions,
            Duration ttl,
            @Nullable Duration disconnectGrace,
            List<Long> serverPids,
            PrintStream progress,
            @Nullable ClientTls tls) {
        this(
                endpoints,
                clients,
                warmup,
                duration,
                rounds,
                sessions,
                ttl,
                disconnectGrace,
                serverPids,
                progress,
                tls,
                0,
                1);
    }

    /** A copy with another client count (a workload with a fixed shape, e.g. one client). */
    public LoadConfig withClients(int n) {
        return new LoadConfig(
                endpoints,
                n,
                warmup,
                duration,
                rounds,
                sessions,
                ttl,
                disconnectGrace,
                serverPids,
                progress,
                tls,
                watchers,
                locksPerSession);
    }

    /** A copy with another watch count. */
    public LoadConfig withWatchers(int n) {
        return new LoadConfig(
                endpoints,
                clients,
                warmup,
                duration,
                rounds,
                sessions,
                ttl,
                disconnectGrace,
                serverPids,
                progress,
                tls,
                n,
                locksPerSession);
    }

    static void between(String option, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    option + " must be between " + min + " and " + max + " (limit), was " + value);
        }
    }

    static void between(String option, Duration value, Duration min, Duration max) {
        Objects.requireNonNull(value, option);
        if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
            throw new IllegalArgumentException("%s must be between %s and %s (limit), was %s"
                    .formatted(option, human(min), human(max), human(value)));
        }
    }

    private static String human(Duration d) {
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        if (s >= 3600 && s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s >= 60 && s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }
}
