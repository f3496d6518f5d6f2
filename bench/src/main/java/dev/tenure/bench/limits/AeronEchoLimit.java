package dev.tenure.bench.limits;

import dev.tenure.bench.report.Figures;
import dev.tenure.process.Dirs;
import dev.tenure.process.LoopbackPorts;
import dev.tenure.server.config.ServerConfig;
import dev.tenure.server.runtime.AdaptiveIdleStrategy;
import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.client.EgressListener;
import io.aeron.logbuffer.Header;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Aeron Cluster's own ceiling on this machine: an echo service on 1 or 3 members (in this JVM,
 * loopback, fsync on as Tenure configures it), one cluster client on member 0's media driver as
 * a Tenure gateway is. With one message in flight it gives the commit round trip; with
 * {@code window} in flight (as many clients would keep) the throughput.
 */
final class AeronEchoLimit {

    private static final int MESSAGE_BYTES = 64;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(60);
    private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(5);

    private AeronEchoLimit() {}

    static List<Figures> run(int nodes, Path dir, Duration warmup, Duration duration, int window) throws Exception {
        String run = Long.toString(System.nanoTime(), 36);
        Path data = dir.resolve("tenure-bench-aeron-" + nodes + "-" + run);
        List<ServerConfig.Member> members = members(nodes);
        List<EchoNode> started = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                started.add(EchoNode.launch(
                        members, i, data.resolve("node-" + i), shm("tenure-bench-echo-" + run + "-" + i)));
            }
            Echoes echoes = new Echoes();
            try (AeronCluster client = connect(members, started.get(0).aeronDir(), echoes)) {
                List<Figures> out = new ArrayList<>();
                String name = "limit-aeron-" + nodes + "-node";
                out.add(loop(client, echoes, name + "-rtt", 1, warmup, duration));
                out.add(loop(client, echoes, name + "-" + window + "-in-flight", window, warmup, duration));
                return out;
            }
        } finally {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
            Dirs.deleteTree(data);
        }
    }

    private static Figures loop(
            AeronCluster client, Echoes echoes, String name, int window, Duration warmup, Duration duration) {
        IdleStrategy idle = AdaptiveIdleStrategy.standard();
        UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_BYTES]);
        long start = System.nanoTime();
        echoes.reset(start + warmup.toNanos(), start + warmup.toNanos() + duration.toNanos());
        long nextKeepAlive = start;
        long now = start;
        while (now < echoes.measureTo) {
            while (echoes.inFlight < window) {
                message.putLong(0, System.nanoTime());
                if (client.offer(message, 0, MESSAGE_BYTES) < 0) {
                    break; // back pressure: poll, then try again
                }
                echoes.inFlight++;
            }
            idle.idle(client.pollEgress());
            now = System.nanoTime();
            if (now >= nextKeepAlive) {
                client.sendKeepAlive();
                nextKeepAlive = now + TimeUnit.SECONDS.toNanos(1);
            }
        }
        long drainUntil = System.nanoTime() + DRAIN_NANOS;
        while (echoes.inFlight > 0 && System.nanoTime() < drainUntil) {
            idle.idle(client.pollEgress());
        }
        echoes.inFlight = 0;
        return Figures.of(name, window, echoes.ops, duration.toNanos() / 1e9, echoes.latency.copy())
                .with("latency", MESSAGE_BYTES + " B through the log to an echo service and back");
    }

    private static AeronCluster connect(List<ServerConfig.Member> members, String aeronDir, Echoes echoes)
            throws InterruptedException {
        boolean local = members.size() == 1;
        AeronCluster.Context ctx = new AeronCluster.Context()
                .aeronDirectoryName(aeronDir)
                .ingressChannel(local ? "aeron:ipc" : "aeron:udp")
                .ingressEndpoints(local ? null : EchoNode.ingressEndpoints(members))
                .egressChannel(local ? "aeron:ipc" : "aeron:udp?endpoint=127.0.0.1:0")
                .messageTimeoutNs(TimeUnit.SECONDS.toNanos(10))
                .egressListener(echoes);
        long deadline = System.nanoTime() + CONNECT_TIMEOUT.toNanos();
        while (true) {
            try {
                return AeronCluster.connect(ctx.clone());
            } catch (RuntimeException e) {
                // No leader yet: the members are still electing one.
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("no Aeron echo cluster leader within " + CONNECT_TIMEOUT, e);
                }
                Thread.sleep(200);
            }
        }
    }

    /** Member i uses UDP ports base+10i+1..+5 on loopback, all free right now. */
    private static List<ServerConfig.Member> members(int nodes) {
        int base = LoopbackPorts.randomBase(
                30_000,
                20_000,
                100,
                b -> LoopbackPorts.udpFree(b + 1, b + 10 * nodes),
                "UDP ports for the Aeron echo cluster");
        List<ServerConfig.Member> members = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            members.add(new ServerConfig.Member(i, "127.0.0.1", 0, base + 10 * i));
        }
        return members;
    }

    private static String shm(String name) {
        File shm = new File("/dev/shm");
        return (shm.isDirectory() ? shm.getPath() : System.getProperty("java.io.tmpdir")) + "/" + name;
    }

    /** Counts echoes and their round trips; touched only by the polling thread. */
    private static final class Echoes implements EgressListener {
        final Histogram latency = Figures.newHistogram();
        long measureFrom;
        long measureTo;
        long ops;
        int inFlight;

        void reset(long from, long to) {
            measureFrom = from;
            measureTo = to;
            ops = 0;
            latency.reset();
        }

        @Override
        public void onMessage(
                long clusterSessionId, long timestamp, DirectBuffer buffer, int offset, int length, Header header) {
            long now = System.nanoTime();
            inFlight--;
            if (now >= measureFrom && now <= measureTo) {
                ops++;
                latency.recordValue(Math.max(1_000, now - buffer.getLong(offset)));
            }
        }
    }
}
