package dev.tenure.lab.process;

import dev.tenure.process.LoopbackPorts;

/**
 * Free blocks of loopback ports for a local cluster laid out as {@link LocalCluster} plans it:
 * node i's gRPC and admin ports at base + 20·i and + 1, Aeron's five UDP ports at + 11 .. + 15.
 */
public final class Ports {
    private Ports() {}

    /** The first base port from {@code from} (in steps of 100) where every node's ports are free. */
    public static int freeClusterBase(int from, int nodes) {
        return LoopbackPorts.firstBase(
                from, 100, 65_000 - 20 * nodes, base -> blockFree(base, nodes), "ports for " + nodes + " nodes");
    }

    /**
     * A base port in [20000, 45000), chosen at random, where every node's ports are free: for
     * tests, which may run beside other tests that look for ports too.
     */
    public static int freeClusterBaseAtRandom(int nodes) {
        return LoopbackPorts.randomBase(
                20_000, 25_000, 100, base -> blockFree(base, nodes), "ports for " + nodes + " nodes");
    }

    private static boolean blockFree(int base, int nodes) {
        for (int i = 0; i < nodes; i++) {
            int p = base + 20 * i;
            if (!LoopbackPorts.tcpFree(p) || !LoopbackPorts.tcpFree(p + 1)) {
                return false;
            }
            for (int u = p + 11; u <= p + 15; u++) {
                if (!LoopbackPorts.udpFree(u) || !LoopbackPorts.tcpFree(u)) {
                    return false;
                }
            }
        }
        return true;
    }
}
