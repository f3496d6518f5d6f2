package dev.tenure.lab.fault;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback between one client and one server endpoint, whose {@link FaultMode}
 * the lab switches while the link is in use. One proxy per link: the client is given the proxy's
 * endpoint instead of the server's.
 */
public final class FaultProxy implements AutoCloseable {
    private final String name;
    private final InetSocketAddress target;
    private final ServerSocket listener;
    private final List<Link> links = new ArrayList<>(); // guarded by this
    private final AtomicLong bytesUp = new AtomicLong();
    private final AtomicLong bytesDown = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private volatile FaultMode mode = FaultMode.PASS;
    private volatile long delayNanos;
    private volatile boolean closed;

    private record Link(Socket client, Socket server, Pipe up, Pipe down) {}

    /** Listens on a free loopback port and forwards to {@code targetHostPort}. */
    public FaultProxy(String name, String targetHostPort) throws IOException {
        this.name = name;
        int colon = targetHostPort.lastIndexOf(':');
        this.target = new InetSocketAddress(
                targetHostPort.substring(0, colon), Integer.parseInt(targetHostPort.substring(colon + 1)));
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "proxy-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The endpoint to give the client. */
    public String endpoint() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    public String name() {
        return name;
    }

    public FaultMode mode() {
        return mode;
    }

    long delayNanos() {
        return delayNanos;
    }

    /** Switches the mode; {@link FaultMode#RESET} also resets every open connection now. */
    public void mode(FaultMode next) {
        this.mode = next;
        if (next == FaultMode.RESET) {
            resetAll();
        }
    }

    /** {@link FaultMode#DELAY} with this delay for every chunk read from now on. */
    public void delay(Duration delay) {
        this.delayNanos = delay.toNanos();
        mode(FaultMode.DELAY);
    }

    /** Connections accepted so far. */
    public long accepted() {
        return accepted.get();
    }

    /**
     * A half reset, as a NAT or middlebox that lost its state makes one: every open connection's
     * server side is closed (with an RST if {@code rst}, else a FIN: a proxy that closes its
     * upstream cleanly on an idle timeout), while its client side stays open and silent: nothing
     * more is delivered to it, and it is never closed. New connections follow the mode.
     */
    public void cutServerSide(boolean rst) {
        for (Link l : takeLinks()) {
            l.up().sever();
            l.down().sever();
            if (rst) {
                reset(l.server());
            } else {
                try {
                    l.server().shutdownOutput();
                } catch (IOException e) {
                    // already gone
                }
            }
        }
    }

    /** The other half reset: every open connection's client side gets an RST, its server side stays open and silent. */
    public void cutClientSide() {
        for (Link l : takeLinks()) {
            l.up().sever();
            l.down().sever();
            reset(l.client());
        }
    }

    private List<Link> takeLinks() {
        synchronized (this) {
            List<Link> all = new ArrayList<>(links);
            links.clear();
            return all;
        }
    }

    /** Bytes read from clients so far (whatever was done with them). */
    public long bytesUp() {
        return bytesUp.get();
    }

    public long bytesDown() {
        return bytesDown.get();
    }

    /** Chunks read but not delivered yet, both ways: bytes still in flight. */
    public synchronized int inFlight() {
        int n = 0;
        for (Link l : links) {
            n += l.up().pending() + l.down().pending();
        }
        return n;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            if (mode == FaultMode.RESET) {
                reset(client);
                continue;
            }
            try {
                Socket server = new Socket();
                server.connect(target, 2000);
                server.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                Pipe up = new Pipe(this, true, client, server, bytesUp);
                Pipe down = new Pipe(this, false, server, client, bytesDown);
                synchronized (this) {
                    links.add(new Link(client, server, up, down));
                }
                up.start("proxy-" + name);
                down.start("proxy-" + name);
            } catch (IOException unreachable) {
                reset(client); // as a dead server looks to a client: refused
            }
        }
    }

    private void resetAll() {
        for (Link l : takeLinks()) {
            reset(l.client());
            reset(l.server());
        }
    }

    /** Closes with SO_LINGER 0, which sends RST instead of FIN. */
    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
            s.close();
        } catch (IOException e) {
            // already gone
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        resetAll();
    }
}
