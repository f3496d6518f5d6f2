package dev.tenure.server.cluster;

/**
 * What this node's replica has applied, published by the service thread after every apply for
 * other threads to read. It is not a linearizable read (that goes through the log); it shows
 * whether this replica has caught up with the others.
 */
public final class ReplicaView {

    private volatile long lastToken;
    private volatile long logPosition;

    void applied(long lastToken, long logPosition) {
        this.lastToken = lastToken;
        this.logPosition = logPosition;
    }

    public long lastToken() {
        return lastToken;
    }

    public long logPosition() {
        return logPosition;
    }
}
