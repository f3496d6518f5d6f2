package dev.tenure.lab.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** A worker's connection to the {@link LabStore}: one write at a time, one answer each. */
public final class StoreClient implements AutoCloseable {
    /** OK, REJ (stale token, with the token that won) or ERR (outcome unknown). */
    public record Reply(String code, String detail) {
        public boolean ok() {
            return code.equals("OK");
        }

        public boolean rejected() {
            return code.equals("REJ");
        }
    }

    private final String endpoint;
    private final int timeoutMs;
    private @Nullable Socket socket;
    private @Nullable BufferedReader in;
    private @Nullable PrintWriter out;

    public StoreClient(String endpoint, Duration timeout) {
        this.endpoint = endpoint;
        this.timeoutMs = (int) timeout.toMillis();
    }

    /**
     * Sends one write and waits for its answer.
     *
     * @throws IOException the answer did not come: the outcome is unknown
     */
    public Reply write(String resource, String writer, String lock, long token, int n, String value)
            throws IOException {
        connect();
        try {
            Objects.requireNonNull(out, "connect() opened it")
                    .println(String.join(
                            "\t", "W", resource, writer, lock, Long.toString(token), Integer.toString(n), value));
            String line = Objects.requireNonNull(in, "connect() opened it").readLine();
            if (line == null) {
                throw new IOException("the store closed the connection");
            }
            int space = line.indexOf(' ');
            return space < 0 ? new Reply(line, "") : new Reply(line.substring(0, space), line.substring(space + 1));
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private void connect() throws IOException {
        if (socket != null) {
            return;
        }
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

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            socket = null;
        }
    }
}
