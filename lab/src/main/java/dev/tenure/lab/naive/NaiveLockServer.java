package dev.tenure.lab.naive;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The baseline every scenario compares Tenure with: the common TTL lock, as people build it on
 * Redis. {@code SETNX key value ttl} takes the lock if the key is absent (or expired), {@code DEL
 * key} deletes it whoever holds it, {@code EXTEND key value ttl} is a watchdog's renewal. It
 * hands out no token: the generation it returns on SETNX is the lab's bookkeeping (which grant a
 * write came from), never passed to storage checks.
 *
 * <p>Optionally a primary with asynchronous replicas, as Redis with Sentinel: each change is
 * shipped to the replicas {@code --lag-ms} later, and clients fail over to a replica when the
 * primary is unreachable. Runs as its own process so faults hit it as they hit Tenure's nodes.
 *
 * <p>Usage: {@code NaiveLockServer [--port 0] [--replicas host:port,...] [--lag-ms 1000]}; prints
 * {@code naive: listening on 127.0.0.1:PORT} when it serves.
 */
public final class NaiveLockServer {
    private record Entry(String value, long expiresAtNanos) {}

    private final Map<String, Entry> keys = new TreeMap<>(); // guarded by this
    private long generation; // guarded by this
    private final List<Replica> replicas = new ArrayList<>();
    private final long lagMs;
    private final ScheduledExecutorService shipper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "naive-replication");
        t.setDaemon(true);
        return t;
    });

    NaiveLockServer(List<String> replicaEndpoints, long lagMs) {
        this.lagMs = lagMs;
        for (String r : replicaEndpoints) {
            replicas.add(new Replica(r));
        }
    }

    public static void main(String[] args) throws IOException {
        int port = 0;
        List<String> replicas = new ArrayList<>();
        long lagMs = 1000;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--replicas" -> replicas = List.of(args[i + 1].split(","));
                case "--lag-ms" -> lagMs = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        NaiveLockServer server = new NaiveLockServer(replicas, lagMs);
        ServerSocket listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        System.out.println("naive: listening on 127.0.0.1:" + listener.getLocalPort());
        System.out.flush();
        while (true) {
            Socket s = listener.accept();
            Thread t = new Thread(() -> server.serve(s), "naive-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void serve(Socket s) {
        try (s;
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                String reply = handle(line.split(" ", -1));
                if (reply != null) {
                    out.println(reply);
                }
            }
        } catch (IOException gone) {
            // client gone
        }
    }

    /** The reply to one command; null for a replicated write, which gets none. */
    synchronized @Nullable String handle(String[] c) {
        long now = System.nanoTime();
        switch (c[0]) {
            case "SETNX" -> {
                Entry e = live(c[1], now);
                if (e != null) {
                    return "HELD";
                }
                long gen = ++generation;
                long ttlMs = Long.parseLong(c[3]);
                keys.put(c[1], new Entry(c[2], now + TimeUnit.MILLISECONDS.toNanos(ttlMs)));
                ship("REPL SET " + c[1] + " " + c[2] + " " + ttlMs + " " + gen);
                return "OK " + gen;
            }
            case "EXTEND" -> {
                Entry e = live(c[1], now);
                if (e == null || !e.value().equals(c[2])) {
                    return "NO";
                }
                long ttlMs = Long.parseLong(c[3]);
                keys.put(c[1], new Entry(c[2], now + TimeUnit.MILLISECONDS.toNanos(ttlMs)));
                ship("REPL SET " + c[1] + " " + c[2] + " " + ttlMs + " " + generation);
                return "OK";
            }
            case "DEL" -> {
                // Blind: whoever holds the key, it goes. The mistake this baseline stands for.
                boolean existed = live(c[1], now) != null;
                keys.remove(c[1]);
                ship("REPL DEL " + c[1]);
                return existed ? "OK 1" : "OK 0";
            }
            case "GET" -> {
                Entry e = live(c[1], now);
                return e == null ? "NIL" : "VAL " + e.value();
            }
            case "REPL" -> {
                applyReplicated(c, now);
                return null;
            }
            default -> {
                return "ERR unknown command " + c[0];
            }
        }
    }

    private @Nullable Entry live(String key, long now) {
        Entry e = keys.get(key);
        if (e != null && now - e.expiresAtNanos() >= 0) {
            keys.remove(key);
            return null;
        }
        return e;
    }

    private void applyReplicated(String[] c, long now) {
        if (c[1].equals("SET")) {
            keys.put(c[2], new Entry(c[3], now + TimeUnit.MILLISECONDS.toNanos(Long.parseLong(c[4]))));
            generation = Math.max(generation, Long.parseLong(c[5]));
        } else if (c[1].equals("DEL")) {
            keys.remove(c[2]);
        }
    }

    /** Asynchronous replication: acknowledged to the client now, shipped later. */
    private void ship(String command) {
        for (Replica r : replicas) {
            // Shipping is fire and forget, as in the asynchronous replication this models.
            ScheduledFuture<?> unused = shipper.schedule(() -> r.send(command), lagMs, TimeUnit.MILLISECONDS);
        }
    }

    /** One replica's connection; a send that fails is lost, as asynchronous replication loses it. */
    private static final class Replica {
        private final String endpoint;
        private @Nullable PrintWriter out;

        Replica(String endpoint) {
            this.endpoint = endpoint;
        }

        void send(String command) {
            try {
                if (out == null) {
                    int colon = endpoint.lastIndexOf(':');
                    Socket s = new Socket();
                    s.connect(
                            new InetSocketAddress(
                                    endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1))),
                            500);
                    out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
                }
                out.println(command);
                if (out.checkError()) {
                    out = null;
                }
            } catch (IOException e) {
                out = null;
            }
        }
    }
}
