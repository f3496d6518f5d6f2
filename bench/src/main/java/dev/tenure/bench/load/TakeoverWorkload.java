package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.process.JavaCommand;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.HdrHistogram.Histogram;

/**
 * Crash takeover: a holder process started here acquires a lock, a waiter in this process queues
 * behind it, the holder is killed with SIGKILL, and the figure is the time from the kill to the
 * waiter's grant. The holder's TTL is long (60 s), so only the connection-bound session can
 * explain a fast handover; the grant's previous end says which one it was.
 */
final class TakeoverWorkload {

    private static final long HOLDER_TTL_SECONDS = 60;
    private static final Duration HOLDER_START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration QUEUED_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration GRANT_TIMEOUT = Duration.ofMinutes(2);

    private TakeoverWorkload() {}

    static Figures run(LoadConfig config) throws Exception {
        Histogram h = Figures.newHistogram();
        Map<LossReason, Integer> ends = new EnumMap<>(LossReason.class);
        String run = Clients.runId();
        long began = System.nanoTime();
        try (Clients clients = new Clients()) {
            TenureClient tenure = clients.open(config, "takeover-waiter");
            Session waiter = tenure.openSession();
            for (int i = 0; i < config.rounds(); i++) {
                String lock = "bench-takeover-" + run + "-" + i;
                Process holder = startHolder(config, lock);
                try {
                    awaitGranted(holder);
                    CompletableFuture<Lease> next = waiter.acquireAsync(lock, GRANT_TIMEOUT);
                    awaitQueued(tenure, lock);
                    long killedAt = System.nanoTime();
                    holder.destroyForcibly(); // SIGKILL on Linux
                    Lease lease = next.get(GRANT_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                    h.recordValue(System.nanoTime() - killedAt);
                    lease.previousEnd().ifPresent(end -> ends.merge(end, 1, Integer::sum));
                    lease.release();
                } finally {
                    holder.destroyForcibly();
                    holder.waitFor();
                }
                if ((i + 1) % 5 == 0 && i + 1 < config.rounds()) {
                    ClosedLoop.progress(config, "takeover", (i + 1) + " of " + config.rounds() + " rounds");
                }
            }
        }
        Figures f = Figures.of("takeover", 1, h.getTotalCount(), (System.nanoTime() - began) / 1e9, h)
                .with("latency", "SIGKILL of the holder to the waiter's grant")
                .with(
                        "disconnect_grace",
                        config.disconnectGrace() == null
                                ? "default"
                                : config.disconnectGrace().toMillis() + "ms");
        for (Map.Entry<LossReason, Integer> e : ends.entrySet()) {
            f = f.with("previous_end_" + e.getKey().name().toLowerCase(java.util.Locale.ROOT), e.getValue());
        }
        return f;
    }

    private static Process startHolder(LoadConfig config, String lock) throws IOException {
        List<String> cmd = new ArrayList<>(JavaCommand.of(
                List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m"),
                JavaCommand.selfClasspath(TakeoverWorkload.class),
                Holder.class.getName()));
        cmd.addAll(List.of(config.endpoints(), lock, Long.toString(HOLDER_TTL_SECONDS)));
        if (config.disconnectGrace() != null) {
            cmd.add(Long.toString(config.disconnectGrace().toMillis()));
        }
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    private static void awaitGranted(Process holder) throws IOException, InterruptedException, TimeoutException {
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        });
        String first;
        try {
            first = line.get(HOLDER_START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            first = null;
        }
        if (first == null || !first.startsWith("granted")) {
            throw new BenchFailedException("takeover: the holder process did not get its lock: " + first);
        }
    }

    /** Kills only once the waiter is in the lock's queue on the server, not after a guessed sleep. */
    private static void awaitQueued(TenureClient tenure, String lock) throws InterruptedException {
        long deadline = System.nanoTime() + QUEUED_TIMEOUT.toNanos();
        while (tenure.status(lock).waiters().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new BenchFailedException("takeover: the waiter was not queued on " + lock + " within "
                        + QUEUED_TIMEOUT.toSeconds() + " s");
            }
            Thread.sleep(5);
        }
    }
}
