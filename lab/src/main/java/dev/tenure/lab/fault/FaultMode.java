package dev.tenure.lab.fault;

/**
 * What a {@link FaultProxy} does with the bytes of its links. "Up" is client to server (requests),
 * "down" is server to client (responses).
 */
public enum FaultMode {
    /** Forward both ways at once. */
    PASS,
    /**
     * Accept connections, forward nothing either way, and never close: to both ends the link is
     * silent, as in a partition (not even a FIN or RST gets through).
     */
    BLACKHOLE,
    /** Reset every connection (RST both ends), and every new one as soon as it is accepted. */
    RESET,
    /** Forward both ways, each chunk after the proxy's delay; order and end-of-stream are kept. */
    DELAY,
    /** One way: requests go through, responses are dropped (a lost reply). */
    DROP_RESPONSES,
    /** One way: requests are dropped, responses (if any) go through. */
    DROP_REQUESTS
}
