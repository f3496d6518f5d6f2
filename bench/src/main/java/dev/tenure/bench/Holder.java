package dev.tenure.bench;

import dev.tenure.client.Lease;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import java.time.Duration;

/** A holder process for {@link TakeoverBench}: acquires LOCK, prints "granted TOKEN", holds until killed. */
public final class Holder {

    public static void main(String[] args) throws Exception {
        try (TenureClient tenure = TenureClient.builder()
                        .endpoints(args[0])
                        .sessionTtl(Duration.ofSeconds(Long.parseLong(args[2])))
                        .build();
                Session session = tenure.openSession();
                Lease lease = session.acquire(args[1])) {
            System.out.println("granted " + lease.token());
            System.out.flush();
            lease.lost().join();
        }
    }
}
