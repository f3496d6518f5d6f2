package dev.tenure.server.gateway;

/** The cluster did not answer in time: no leader, no quorum, or the node is shutting down. */
final class ClusterUnavailableException extends RuntimeException {
    ClusterUnavailableException(String message) {
        super(message, null, false, false);
    }
}
