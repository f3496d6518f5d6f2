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
