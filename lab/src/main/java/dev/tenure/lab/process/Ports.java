package dev.tenure.lab.process;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Finding a free block of loopback ports for a local cluster. */
public final class Ports {
    private Ports() {}

    /**
     * The first base port from {@code from} (in steps of 100) where node i's gRPC and admin ports
     * (base + 20·i, + 1) and Aeron's five UDP ports (+ 11 .. + 15) are free for every node.
     */
    public static int freeClusterBase(int from, int nodes) {
        for (int base = from; base + 20 * nodes < 65_000; base += 100) {
            if (blockFree(base, nodes)) {
                return base;
            }
        }
        throw new IllegalStateException("no free block of ports for " + nodes + " nodes from " + from);
    }

    private static boolean blockFree(int base, int nodes) {
        for (int i = 0; i < nodes; i++) {
            int p = base + 20 * i;
            if (!tcpFree(p) || !tcpFree(p + 1)) {
                return false;
            }
            for (int u = p + 11; u <= p + 15; u++) {
                if (!udpFree(u) || !tcpFree(u)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean tcpFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean udpFree(int port) {
        try (DatagramSocket s = new DatagramSocket(port, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
