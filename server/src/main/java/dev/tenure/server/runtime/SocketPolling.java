package dev.tenure.server.runtime;

import org.agrona.nio.TransportPoller;

/** How the media driver reads its UDP sockets on each duty cycle. */
public final class SocketPolling {

    private SocketPolling() {}

    /**
     * Makes the driver read its UDP sockets with one {@code select} per duty cycle. It reads them
     * one {@code recvfrom} each while it has at most five, and with one {@code select} beyond
     * that. A member of a cluster has about that many, and most of its duty cycles find nothing
     * (the cluster's heartbeats and status messages wake the thread even at rest), so it paid
     * every system call every time. With one select always, a cluster at rest costs less and one
     * under load is no slower (see BENCHMARKS.md, 'One select per duty cycle'). Must run before
     * the driver's pollers are loaded; a value the operator set wins.
     */
    public static void oneSelectPerDutyCycle() {
        if (System.getProperty(TransportPoller.ITERATION_THRESHOLD_PROP_NAME) == null) {
            System.setProperty(TransportPoller.ITERATION_THRESHOLD_PROP_NAME, "0");
        }
    }
}
