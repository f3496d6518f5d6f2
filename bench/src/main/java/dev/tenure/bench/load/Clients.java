package dev.tenure.bench.load;

import dev.tenure.bench.report.Figures;
import dev.tenure.client.Lease;
import dev.tenure.client.LossReason;
import dev.tenure.client.Session;
import dev.tenure.client.TenureClient;
import dev.tenure.client.TenureListener;
import dev.tenure.client.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/** The bench's clients: one {@link TenureClient} is one connection, as one application process has. */
final class Clients implements AutoCloseable {

    /** Generous: a 2-core machine under load answers slowly, and a slow answer is a figure, not a failure. */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final List<TenureClient> open = new ArrayList<>();
    private final LongAdder replaced = new LongAdder();
    private final AtomicReference<String> firstReplacement = new AtomicReference<>();
    private final LongAdder uncertain = new LongAdder();
    private final Map<LossReason, LongAdder> leasesLost = new ConcurrentSkipListMap<>();

    /**
     * Counts connections replaced as silent, sessions gone in doubt and leases lost: a default that
     * does any of these under load is unfit for it, and the last is what the grace exists to
     * prevent.
     */
    private final TenureListener listener = new TenureListener() {
        @Override
        public void connectionReplaced(String endpoint, String why) {
            replaced.increment();
            firstReplacement.compareAndSet(null, endpoint + ": " + why);
        }

        @Override
        public void sessionStateChanged(Session session, Session.State from, Session.State to) {
            if (to == Session.State.UNCERTAIN) {
                uncertain.increment();
            }
        }

        @Override
        public void leaseLost(Lease lease, LossReason reason) {
            if (reason != LossReason.RELEASED) {
                leasesLost.computeIfAbsent(reason, r -> new LongAdder()).increment();
            }
        }
    };

    TenureClient open(LoadConfig config, String name) {
        TenureClient.Builder b = TenureClient.builder()
                .endpoints(config.endpoints())
                .listener(listener)
                .sessionTtl(config.ttl())
                .requestTimeout(REQUEST_TIMEOUT)
                .clientName("tenure-bench " + name + " pid "
                        + ProcessHandle.current().pid());
        if (config.disconnectGrace() != null) {
            b.disconnectGrace(config.disconnectGrace());
        }
        if (config.tls() != null) {
            Transport.tls(b, config.tls());
        }
        TenureClient c = b.build();
        open.add(c);
        return c;
    }

    /**
     * {@code f} with how many connections were replaced as silent (and the first reason, if any),
     * how many times a session went in doubt (UNCERTAIN: its stream broke or a keepalive went
     * unacknowledged), and how many leases were lost other than by their release.
     */
    Figures withReplacements(Figures f) {
        f = f.with("connections_replaced", replaced.sum())
                .with("sessions_gone_uncertain", uncertain.sum())
                .with(
                        "leases_lost",
                        leasesLost.values().stream().mapToLong(LongAdder::sum).sum());
        if (!leasesLost.isEmpty()) {
            f = f.with(
                    "leases_lost_by_reason",
                    leasesLost.entrySet().stream()
                            .map(e -> e.getKey() + ":" + e.getValue().sum())
                            .collect(Collectors.joining(",")));
        }
        String first = firstReplacement.get();
        return first == null ? f : f.with("first_replacement", first);
    }

    /** Closes every client: their sessions end and their leases are released. */
    @Override
    public void close() {
        open.parallelStream().forEach(TenureClient::close);
        open.clear();
    }

    /** A prefix unique to this run, so that one run's locks never meet another's queue or history. */
    static String runId() {
        return Long.toString(System.currentTimeMillis(), 36);
    }
}
