package dev.tenure.lab.store;

import dev.tenure.lab.history.Accept;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The resource the workers write to: a line protocol on loopback in front of a {@link Backend},
 * recording every write it decides in an accept log. Writes are decided one at a time, so the
 * log's order is the order the backend applied them in.
 *
 * <p>Protocol, one line each way: {@code W resource writer lock token n value} (tab-separated)
 * answered by {@code OK seq}, {@code REJ currentToken} or {@code ERR message}.
 */
public final class LabStore implements AutoCloseable {
    private final Backend backend;
    private final LongSupplier clock;
    private final ServerSocket listener;
    private final List<Accept> log = new ArrayList<>(); // guarded by this
    private volatile boolean closed;

    public LabStore(Backend backend, LongSupplier clock) throws IOException {
        this.backend = backend;
        this.clock = clock;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::acceptLoop, "lab-store");
        t.setDaemon(true);
        t.start();
    }

    public String endpoint() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    public Backend backend() {
        return backend;
    }

    public synchronized List<Accept> log() {
        return List.copyOf(log);
    }

    public synchronized long rejected() {
        return log.stream().filter(a -> a.outcome() == Accept.Outcome.REJECTED).count();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket s = listener.accept();
                Thread t = new Thread(() -> serve(s), "lab-store-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s;
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.println(handle(line));
            }
        } catch (IOException gone) {
            // the writer is gone; what it sent was decided already
        }
    }

    String handle(String line) {
        String[] f = line.split("\t", -1);
        if (f.length != 7 || !f[0].equals("W")) {
            return "ERR bad request: expected W resource writer lock token n value";
        }
        return write(f[1], f[2], f[3], Long.parseLong(f[4]), Integer.parseInt(f[5]), f[6]);
    }

    private synchronized String write(String resource, String writer, String lock, long token, int n, String value) {
        Accept.Outcome outcome;
        String reply;
        try {
            Backend.Result r = backend.write(resource, lock, token, value);
            outcome = r.accepted() ? Accept.Outcome.ACCEPTED : Accept.Outcome.REJECTED;
            reply = r.accepted() ? "OK " + (log.size() + 1) : "REJ " + r.currentToken();
        } catch (RuntimeException e) {
            outcome = Accept.Outcome.UNKNOWN;
            reply = "ERR " + String.valueOf(e.getMessage()).replace('\n', ' ');
        }
        log.add(new Accept(log.size() + 1, clock.getAsLong(), resource, writer, lock, token, n, value, outcome));
        return reply;
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        backend.close();
    }
}
