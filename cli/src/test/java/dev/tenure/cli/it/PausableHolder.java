package dev.tenure.cli.it;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.StaleTokenException;
import dev.tenure.client.TenureClient;
import dev.tenure.testkit.Pause;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A worker that believes it owns a lock: it acquires, prints its token, then keeps writing to
 * the fenced KV with that token every 100 ms. Paused past its TTL (SIGSTOP) and resumed, it is
 * the classic stale holder: its writes must be rejected and its lease reported lost.
 *
 * <p>Output lines: {@code granted TOKEN}, {@code put ok}, {@code put rejected current=N},
 * {@code lost REASON}. Arguments: endpoint, lock, key, ttl in ms.
 */
public final class PausableHolder {

    public static void main(String[] args) throws Exception {
        String endpoint = args[0];
        String lock = args[1];
        String key = args[2];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[3]));
        try (TenureClient client = TenureClient.builder()
                        .endpoints(endpoint)
                        .sessionTtl(ttl)
                        .build();
                Session session = client.openSession()) {
            Lease lease = session.acquire(lock);
            System.out.println("granted " + lease.token());
            boolean reportedLoss = false;
            int rejected = 0;
            while (rejected < 3) {
                Pause.forMillis(100); // one write every 100 ms
                if (lease.lost().isDone() && !reportedLoss) {
                    System.out.println("lost " + lease.lost().join());
                    reportedLoss = true;
                }
                try {
                    // Deliberately not lease.fence(): this is the holder that still thinks it owns
                    // the lock and writes with its old token. The store has to refuse it.
                    client.kv()
                            .put(
                                    key,
                                    ("written by " + lease.token()).getBytes(StandardCharsets.UTF_8),
                                    lock,
                                    lease.token());
                    System.out.println("put ok");
                } catch (StaleTokenException e) {
                    System.out.println("put rejected current=" + e.currentToken());
                    rejected++;
                }
                System.out.flush();
            }
        }
    }
}
