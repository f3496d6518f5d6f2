package dev.tenure.bench.limits;

import dev.tenure.bench.load.ClosedLoop;
import dev.tenure.bench.load.LoadConfig;
import dev.tenure.bench.report.Figures;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;

/**
 * The loopback round trip at its cheapest: a 64-byte ping-pong over one TCP connection with
 * Nagle off, blocking I/O, one thread each side. Every request to Tenure crosses loopback at least
 * twice (client to gateway, and on three nodes leader to followers), so this is the floor of the
 * network part of a cycle.
 */
final class TcpLimit {

    private static final int MESSAGE_BYTES = 64;

    private TcpLimit() {}

    static Figures run(LoadConfig config) throws IOException, InterruptedException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread echo = new Thread(() -> echo(server), "bench-tcp-echo");
            echo.setDaemon(true);
            echo.start();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                s.setTcpNoDelay(true);
                OutputStream out = s.getOutputStream();
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] ping = new byte[MESSAGE_BYTES];
                byte[] pong = new byte[MESSAGE_BYTES];
                ClosedLoop.Cycle cycle = () -> {
                    long t0 = System.nanoTime();
                    out.write(ping);
                    in.readFully(pong);
                    return System.nanoTime() - t0;
                };
                return ClosedLoop.run("limit-tcp-rtt", config.withClients(1), List.of(cycle))
                        .with("latency", MESSAGE_BYTES + " B TCP ping-pong on loopback");
            }
        }
    }

    private static void echo(ServerSocket server) {
        try (Socket s = server.accept()) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            byte[] buf = new byte[MESSAGE_BYTES];
            while (true) {
                int n = in.read(buf);
                if (n < 0) {
                    return;
                }
                out.write(buf, 0, n);
            }
        } catch (IOException e) {
            // the client closed its end: done
        }
    }
}
