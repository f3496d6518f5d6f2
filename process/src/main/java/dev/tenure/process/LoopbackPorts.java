package dev.tenure.process;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntPredicate;

/**
 * Free ports on loopback, right now: nothing reserves them, so a caller uses them soon. Which
 * ports a node needs is the caller's to say (a predicate over a base port); searches that start
 * at random keep test JVMs that run at the same time from picking the same block.
 */
public final class LoopbackPorts {
    private static final int ATTEMPTS = 200;

    private LoopbackPorts() {}

    /**
     * A TCP port free on loopback now, in [10000, 20000): below the kernel's ephemeral range
     * (32768 and up by default), from which it gives outgoing connections their local ports, so no
     * client's connection can take it before the caller binds it. A port the kernel handed out for
     * a listener (port 0) came from that range, and a node was once refused its port ("Address
     * already in use") while a test's connections came and went.
     */
    public static int freeTcpPort() {
        return randomBase(10_000, 10_000, 1, LoopbackPorts::tcpFree, "one TCP port");
    }

    // The socket is opened only to learn whether the port is free: its body has no use for it.
    @SuppressWarnings("try")
    public static boolean tcpFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // The socket is opened only to learn whether the port is free: its body has no use for it.
    @SuppressWarnings("try")
    public static boolean udpFree(int port) {
        try (DatagramSocket s = new DatagramSocket(port, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether every UDP port from {@code from} to {@code to} (inclusive) is free. */
    public static boolean udpFree(int from, int to) {
        for (int p = from; p <= to; p++) {
            if (!udpFree(p)) {
                return false;
            }
        }
        return true;
    }

    /** A base in [20000, 50000) such that base+1 .. base+ports are free UDP ports (an Aeron block). */
    public static int freeUdpBlock(int ports) {
        return randomBase(20_000, 30_000, 10, base -> udpFree(base + 1, base + ports), ports + " UDP ports");
    }

    /**
     * A base, a multiple of {@code step} in [from, from + span), for which {@code free} holds, tried
     * at random.
     *
     * @throws IllegalStateException none found in 200 tries, naming {@code what}
     */
    public static int randomBase(int from, int span, int step, IntPredicate free, String what) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            int base = from + ThreadLocalRandom.current().nextInt(span) / step * step;
            if (free.test(base)) {
                return base;
            }
        }
        throw new IllegalStateException("no free block of " + what + " on loopback in " + from + ".." + (from + span)
                + " after " + ATTEMPTS + " tries");
    }

    /**
     * The first base from {@code from} upward, in steps of {@code step} and below {@code limit},
     * for which {@code free} holds.
     */
    public static int firstBase(int from, int step, int limit, IntPredicate free, String what) {
        for (int base = from; base < limit; base += step) {
            if (free.test(base)) {
                return base;
            }
        }
        throw new IllegalStateException("no free block of " + what + " on loopback from " + from);
    }
}
