package dev.tenure.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A TCP connection to a node's gRPC port that speaks as little HTTP/2 as a flood needs: nothing
 * at all, or the client's preface and an empty SETTINGS frame (after which gRPC counts the
 * connection's handshake as done) and then no call. It can read what the node sends, frame by
 * frame, and acknowledges the node's PINGs, as a client would.
 */
public final class RawConnection implements AutoCloseable {
    /** HTTP/2 frame types this reads by name. */
    public static final int HEADERS = 0x1;

    public static final int RST_STREAM = 0x3;
    public static final int SETTINGS = 0x4;

    public static final int PING = 0x6;
    public static final int GOAWAY = 0x7;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EMPTY_SETTINGS = {0, 0, 0, SETTINGS, 0, 0, 0, 0, 0};

    private final Socket socket;
    private DataInputStream in;
    private OutputStream out;
    private boolean reset;

    private RawConnection(Socket socket) {
        this.socket = socket;
    }

    /**
     * Connects and sends nothing. A node that refuses the connection at accept may reset it before
     * the connect returns: then the next read says it is closed.
     */
    public static RawConnection silent(int port) throws IOException {
        return silent(null, port);
    }

    /** As {@link #silent(int)}, from {@code localAddress} (a loopback address: 127.0.0.2, ...). */
    private static RawConnection silent(String localAddress, int port) throws IOException {
        Socket socket = new Socket();
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        RawConnection c = new RawConnection(socket);
        try {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        } catch (SocketException e) {
            if (e.getMessage() == null || !e.getMessage().contains("reset")) {
                throw e;
            }
            c.reset = true;
        }
        return c;
    }

    /**
     * Connects and sends the client preface and an empty SETTINGS frame: an HTTP/2 connection with
     * no call. A node that refused the connection may have reset it before these leave: then the
     * next read says it is closed.
     */
    public static RawConnection idle(int port) throws IOException {
        return idleFrom(null, port);
    }

    /** As {@link #idle(int)}, from {@code localAddress} (null: whichever the system picks). */
    public static RawConnection idleFrom(String localAddress, int port) throws IOException {
        RawConnection c = silent(localAddress, port);
        if (c.reset) {
            return c;
        }
        try {
            c.out().write(PREFACE);
            c.out().write(EMPTY_SETTINGS);
            c.out().flush();
        } catch (SocketException reset) {
            c.reset = true;
        }
        return c;
    }

    private DataInputStream in() throws IOException {
        if (in == null) {
            in = new DataInputStream(socket.getInputStream());
        }
        return in;
    }

    private OutputStream out() throws IOException {
        if (out == null) {
            out = socket.getOutputStream();
        }
        return out;
    }

    /** Sends {@code bytes} as they are: frames of the test's own making. */
    public void send(byte[] bytes) throws IOException {
        out().write(bytes);
        out().flush();
    }

    /** One frame as read: its type, flags, payload and stream. */
    // A frame is read and looked at, never compared or hashed: an array's identity equality is no matter.
    @SuppressWarnings("ArrayRecordComponent")
    public record Frame(int type, int flags, byte[] payload, int streamId) {
        /** A GOAWAY's debug data ("max_idle" for an idle connection), as text. */
        public String debugData() {
            return payload.length <= 8 ? "" : new String(payload, 8, payload.length - 8, StandardCharsets.US_ASCII);
        }

        /** Whether this ends a call's stream: a reset, or HEADERS (trailers) flagged END_STREAM. */
        public boolean endsAStream() {
            return streamId != 0 && (type == RST_STREAM || (type == HEADERS && (flags & 0x1) != 0));
        }
    }

    /**
     * The next frame the node sends, answering a PING on the way; null once the node closed the
     * connection (an end of stream, or a reset). Blocks up to {@code timeoutMs} for each read.
     */
    public Frame next(int timeoutMs) throws IOException {
        if (reset) {
            return null;
        }
        socket.setSoTimeout(timeoutMs);
        try {
            byte[] header = new byte[9];
            in().readFully(header);
            int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
            byte[] payload = new byte[length];
            in().readFully(payload);
            int streamId = ((header[5] & 0x7f) << 24)
                    | ((header[6] & 0xff) << 16)
                    | ((header[7] & 0xff) << 8)
                    | (header[8] & 0xff);
            Frame frame = new Frame(header[3] & 0xff, header[4] & 0xff, payload, streamId);
            if (frame.type() == PING && (frame.flags() & 0x1) == 0) {
                out().write(new byte[] {0, 0, 8, PING, 0x1, 0, 0, 0, 0});
                out().write(payload);
                out().flush();
            }
            return frame;
        } catch (EOFException closed) {
            return null;
        } catch (SocketException e) {
            if (e.getMessage() != null && e.getMessage().contains("reset")) {
                reset = true;
                return null;
            }
            throw e;
        }
    }

    /**
     * Reads until the node closes the connection (a read finds its end, or a reset), each read
     * waiting up to {@code timeoutMs}; every frame it sent before.
     */
    public List<Frame> untilClosed(int timeoutMs) throws IOException {
        List<Frame> frames = new ArrayList<>();
        for (Frame f = next(timeoutMs); f != null; f = next(timeoutMs)) {
            frames.add(f);
        }
        return frames;
    }

    /**
     * Reads until {@code streams} calls' streams have ended, each read waiting up to {@code
     * timeoutMs}; the ids of the streams that ended. Fails if the node goes quiet or closes first.
     */
    public Set<Integer> untilEnded(int streams, int timeoutMs) throws IOException {
        Set<Integer> ended = new TreeSet<>();
        while (ended.size() < streams) {
            Frame f = next(timeoutMs);
            if (f == null) {
                throw new AssertionError(
                        "no frame within " + timeoutMs + " ms after " + ended.size() + " streams ended");
            }
            if (f.endsAStream()) {
                ended.add(f.streamId());
            }
        }
        return ended;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
