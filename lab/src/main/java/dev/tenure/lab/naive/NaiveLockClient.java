package dev.tenure.lab.naive;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A client of {@link NaiveLockServer}: one command at a time, a read timeout, and failover to the
 * next endpoint when the current one fails (as a Sentinel-aware Redis client moves to the
 * promoted replica). Thread-safe; the watchdog shares it with the worker.
 */
public final class NaiveLockClient implements AutoCloseable {
    private final List<String> endpoints;
    private final int timeoutMs;
    private int current;
    private @Nullable Socket socket;
    private @Nullable BufferedReader in;
    private @Nullable PrintWriter out;

    public NaiveLockClient(List<String> endpoints, Duration timeout) {
        this.endpoints = List.copyOf(endpoints);
        this.timeoutMs = (int) Math.max(1, timeout.toMillis());
    }

    /**
     * Sends one command and returns the reply line.
     *
     * @throws IOException no reply within the timeout or the connection broke: the command may or
     *     may not have been applied. The next call goes to the next endpoint.
     */
    public synchronized String call(String command) throws IOException {
        try {
            connect();
            Objects.requireNonNull(out, "connect() opened it").println(command);
            String line = Objects.requireNonNull(in, "connect() opened it").readLine();
            if (line == null) {
                throw new IOException("connection closed by " + endpoints.get(current));
            }
            return line;
        } catch (IOException e) {
            disconnect();
            current = (current + 1) % endpoints.size();
            throw e;
        }
    }

    private void connect() throws IOException {
        if (socket != null) {
            return;
        }
        String endpoint = endpoints.get(current);
        int colon = endpoint.lastIndexOf(':');
        Socket s = new Socket();
        s.connect(
                new InetSocketAddress(endpoint.substring(0, colon), Integer.parseInt(endpoint.substring(colon + 1))),
                timeoutMs);
        s.setSoTimeout(timeoutMs);
        s.setTcpNoDelay(true);
        socket = s;
        in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    private void disconnect() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            socket = null;
        }
    }

    @Override
    public synchronized void close() {
        disconnect();
    }
}
