package dev.tenure.server;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free loopback ports for test nodes: a TCP port for gRPC and a free block of UDP ports for Aeron. */
public final class TestPorts {

    private TestPorts() {}

    public static int freeTcpPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A base such that base+1..base+9 are free UDP ports on loopback right now. */
    public static int freeAeronPortBase() {
        for (int attempt = 0; attempt < 100; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(30_000) / 10 * 10;
            if (udpFree(base)) {
                return base;
            }
        }
        throw new IllegalStateException("no free UDP port block found");
    }

    /**
     * A base port for `tenure cluster start --base-port`: node i uses TCP base+20i (gRPC) and
     * base+20i+1 (admin), and UDP base+20i+11..15 (Aeron), all free on loopback right now.
     */
    public static int freeClusterBasePort(int nodes) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + ThreadLocalRandom.current().nextInt(25_000) / 100 * 100;
            boolean free = true;
            for (int i = 0; i < nodes && free; i++) {
                int port = base + 20 * i;
                free = tcpFree(port) && tcpFree(port + 1) && udpFree(port + 10);
            }
            if (free) {
                return base;
            }
        }
        throw new IllegalStateException("no free port range for a cluster found");
    }

    private static boolean tcpFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean udpFree(int base) {
        for (int p = base + 1; p < base + 10; p++) {
            try (DatagramSocket s = new DatagramSocket(p, InetAddress.getLoopbackAddress())) {
                // free
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }
}
