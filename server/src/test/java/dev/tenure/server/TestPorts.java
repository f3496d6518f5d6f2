package dev.tenure.server;

import dev.tenure.process.LoopbackPorts;

/**
 * The free block of UDP ports a test node's Aeron endpoints take ({@link ServerConfig.Member}); its
 * TCP ports come from {@link LoopbackPorts#freeTcpPort()}.
 */
public final class TestPorts {

    private TestPorts() {}

    /** A base such that base+1..base+9 are free UDP ports on loopback right now (Aeron uses +1..+5). */
    public static int freeAeronPortBase() {
        return LoopbackPorts.freeUdpBlock(9);
    }
}
