package dev.tenure.peers;

import dev.tenure.bench.load.ClosedLoop;
import dev.tenure.bench.load.LoadConfig;
import dev.tenure.bench.report.Figures;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code uncontended} and {@code parallel} against a peer, as {@code tenure bench} runs them
 * against Tenure: every client has its own connection, its own session and its own lock, and
 * repeats one cycle back to back in bench's {@link ClosedLoop}; the latency is the whole cycle.
 */
final class PeerWorkload {

    /** The workloads a peer runs, in the order given on the command line. */
    static final List<String> NAMES = List.of("uncontended", "parallel");

    private PeerWorkload() {}

    static Figures run(Peer peer, String workload, LoadConfig config) throws Exception {
        // Unique to this run, so that one run's locks never meet another's queue.
        String run = Long.toString(System.currentTimeMillis(), 36);
        List<Peer.Connection> clients = new ArrayList<>();
        try {
            List<ClosedLoop.Cycle> cycles = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                Peer.Connection client = peer.open("tenure-peers/" + run + "/" + workload + "-" + i);
                clients.add(client);
                cycles.add(() -> {
                    long start = System.nanoTime();
                    client.cycle();
                    return System.nanoTime() - start;
                });
            }
            Figures f = ClosedLoop.run(workload, config, cycles);
            long lost = clients.stream().filter(Peer.Connection::sessionLost).count();
            return f.with("system", peer.name()).with("latency", peer.cycle()).with("sessions_lost", lost);
        } finally {
            clients.parallelStream().forEach(Peer.Connection::close);
        }
    }
}
