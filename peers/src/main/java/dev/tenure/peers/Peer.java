package dev.tenure.peers;

import java.time.Duration;

/** A lock service other than Tenure, reached the way its own users reach it. */
interface Peer {

    /** Generous: a 2-core machine under load answers slowly, and a slow answer is a figure, not a failure. */
    Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** The system's name in the figures: {@code etcd} or {@code zookeeper}. */
    String name();

    /** What one cycle does, in the system's own terms (the figures' {@code latency}). */
    String cycle();

    /**
     * One client, as one application process has it: its own connection and its own session, kept
     * alive until {@link Connection#close()}, cycling on {@code lock}, which no other client uses.
     */
    Connection open(String lock) throws Exception;

    /** One connection with one session. */
    interface Connection extends AutoCloseable {

        /** Takes the lock and gives it back: the cycle whose latency is measured. */
        void cycle() throws Exception;

        /** Whether the session ended before {@link #close()} (its keepalive failed, or the server expired it). */
        boolean sessionLost();

        /** Ends the session and closes the connection; never throws. */
        @Override
        void close();
    }
}
