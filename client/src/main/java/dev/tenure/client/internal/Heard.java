package dev.tenure.client.internal;

/**
 * When anything last arrived on one connection, from any of the calls on it (the sessions'
 * AttachMany call, the Calls stream). A connection is silent only if all of them are: a session
 * call that is quiet because calls prove its sessions (no echoes needed) is not a dead
 * connection while the Calls stream hears answers.
 *
 * <p>A connection that has heard nothing yet is given longer before it is judged silent, and
 * longer again for each connection before it to the same endpoint that was replaced without
 * having heard anything ({@link #silenceNanos}). A node that is merely slow, say in a long
 * collection pause or under a burst of opens, leaves its new connections silent too; replacing
 * them at the same pace only adds every session's Resume to its load, and the next connection is
 * silent again. A half-open connection is one that was alive before, and is still judged at the
 * base time; a new one to a node that accepts connections but never answers is moved on from
 * too, only later.
 */
public final class Heard {
    /** The most a new connection's patience is doubled: 8 times the base time. */
    static final int PATIENCE_DOUBLINGS_MAX = 3;

    private final int silentPredecessors;
    private volatile long lastNanos;
    private volatile boolean heardAny;

    public Heard(long nowNanos) {
        this(nowNanos, 0);
    }

    /**
     * @param silentPredecessors how many connections to the same endpoint, one after another just
     *     before this one, were replaced without having heard anything
     */
    public Heard(long nowNanos, int silentPredecessors) {
        this.lastNanos = nowNanos;
        this.silentPredecessors = silentPredecessors;
    }

    /** Something arrived at {@code nowNanos}. */
    public void at(long nowNanos) {
        heardAny = true;
        if (nowNanos - lastNanos > 0) {
            lastNanos = nowNanos;
        }
    }

    public long lastNanos() {
        return lastNanos;
    }

    /** Whether anything at all has arrived since the connection was made. */
    public boolean heardAny() {
        return heardAny;
    }

    /** What the next connection to the same endpoint counts if this one is replaced now. */
    int silentPredecessorsAfter() {
        return heardAny ? 0 : silentPredecessors + 1;
    }

    /**
     * How long this connection must hear nothing to be judged silent, given the base time {@code
     * nanos}: the base once it has heard anything, else twice the base, doubled again for each
     * silent predecessor, up to {@link #PATIENCE_DOUBLINGS_MAX} doublings.
     */
    public long silenceNanos(long nanos) {
        return heardAny ? nanos : nanos << Math.min(1 + silentPredecessors, PATIENCE_DOUBLINGS_MAX);
    }
}
