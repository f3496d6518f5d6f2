package dev.tenure.server.admin;

import org.jspecify.annotations.Nullable;

/**
 * The node's health as the last status probe saw it, and since when. "ok" means a command just
 * went through the log (a quorum accepted it) and the client port served a new connection lately:
 * a client can be served end to end. Anything else is reported as it is, never papered over.
 */
public final class Health {

    private String state = "starting";
    private String detail = "no command has gone through the log yet";
    private long sinceMs = System.currentTimeMillis();

    /**
     * Takes in what the last probe saw, and moves the state (and its since) when that changes it.
     *
     * @param nodeProblem why this node cannot serve whatever the log says, or null: its client
     *     port serves no new connection (PortProbe), or it cannot read its own data directory
     */
    public synchronized void observe(
            boolean logAnswered, boolean clusterConnected, boolean credentialsRefused, @Nullable String nodeProblem) {
        String next;
        String why;
        if (nodeProblem != null) {
            next = "not serving";
            why = nodeProblem;
        } else if (logAnswered) {
            next = "ok";
            why = "";
        } else if (clusterConnected) {
            next = "no quorum";
            why = "connected to the cluster, but a command did not commit in time";
        } else if (credentialsRefused) {
            next = "no quorum";
            why = "the cluster leader refused this node's cluster secret: every member needs the same"
                    + " --cluster-secret-file contents";
        } else {
            next = "no quorum";
            why = "no cluster leader reachable";
        }
        if (!next.equals(state)) {
            sinceMs = System.currentTimeMillis();
        }
        state = next;
        detail = why;
    }

    public synchronized String state() {
        return state;
    }

    public synchronized String detail() {
        return detail;
    }

    public synchronized long sinceMs() {
        return sinceMs;
    }
}
