package dev.tenure.bench.load;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.time.Duration;

/**
 * The holder process of the {@code takeover} workload: acquires LOCK, prints {@code granted
 * TOKEN}, and holds it until it is killed.
 *
 * <p>Usage: {@code Holder ENDPOINTS LOCK TTL_SECONDS [GRACE_MS]} (no GRACE_MS: the client's default)
 */
public final class Holder {

    private Holder() {}

    public static void main(String[] args) {
        TenureClient.Builder b = TenureClient.builder()
                .endpoints(args[0])
                .sessionTtl(Duration.ofSeconds(Long.parseLong(args[2])))
                // as the bench's own clients: a loaded machine answers late, not never
                .requestTimeout(Duration.ofSeconds(30))
                .clientName("tenure-bench holder pid " + ProcessHandle.current().pid());
        if (args.length > 3) {
            b.disconnectGrace(Duration.ofMillis(Long.parseLong(args[3])));
        }
        try (TenureClient tenure = b.build();
                Session session = tenure.openSession();
                Lease lease = session.acquire(args[1])) {
            System.out.println("granted " + lease.token());
            System.out.flush();
            lease.lost().join();
        }
    }
}
