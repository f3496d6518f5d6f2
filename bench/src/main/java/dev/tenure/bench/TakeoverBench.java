package dev.tenure.bench;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Crash takeover: a holder process is killed with SIGKILL while a waiter is queued; the figure is
 * the time from the kill to the waiter's grant. The holder's TTL is long (30 s) so that only the
 * connection-bound session can explain a fast handover. Prints figures; asserts nothing.
 *
 * <p>Usage: {@code TakeoverBench ENDPOINTS ROUNDS}
 */
public final class TakeoverBench {

    public static void main(String[] args) throws Exception {
        String endpoints = args.length > 0 ? args[0] : "127.0.0.1:7420";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        Histogram h = new Histogram(3);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        try (TenureClient tenure = TenureClient.builder().endpoints(endpoints).build();
                Session waiter = tenure.openSession()) {
            for (int i = 0; i < rounds; i++) {
                String lock = "takeover-" + i + "-" + System.nanoTime();
                Process holder = new ProcessBuilder(
                                java,
                                "-XX:+UseSerialGC",
                                "-XX:TieredStopAtLevel=1",
                                "-cp",
                                System.getProperty("java.class.path"),
                                Holder.class.getName(),
                                endpoints,
                                lock,
                                "30")
                        .redirectErrorStream(true)
                        .start();
                BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream()));
                String line = out.readLine();
                if (line == null || !line.startsWith("granted")) {
                    throw new IllegalStateException("holder failed: " + line);
                }
                CompletableFuture<Lease> next = waiter.acquireAsync(lock, Duration.ofSeconds(60));
                Thread.sleep(200); // the waiter is queued on the server
                long killedAt = System.nanoTime();
                holder.destroyForcibly();
                Lease lease = next.get(60, TimeUnit.SECONDS);
                long nanos = System.nanoTime() - killedAt;
                h.recordValue(nanos);
                lease.release();
                holder.waitFor();
            }
        }
        System.out.printf(
                "{\"workload\":\"takeover\",\"rounds\":%d,\"p50_ms\":%.1f,\"p99_ms\":%.1f,\"max_ms\":%.1f}%n",
                rounds, h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6, h.getMaxValue() / 1e6);
    }
}
