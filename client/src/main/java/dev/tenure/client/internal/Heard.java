package dev.tenure.client.internal;

/**
 * When anything last arrived on one connection, from any of the calls on it (the sessions'
 * AttachMany call, the Calls stream). A connection is silent only if all of them are: a session
 * call that is quiet because calls prove its sessions (no echoes needed) is not a dead
 * connection while the Calls stream hears answers.
 */
public final class Heard {
    private volatile long lastNanos;

    public Heard(long nowNanos) {
        this.lastNanos = nowNanos;
    }

    /** Something arrived at {@code nowNanos}. */
    public void at(long nowNanos) {
        if (nowNanos - lastNanos > 0) {
            lastNanos = nowNanos;
        }
    }

    public long lastNanos() {
        return lastNanos;
    }
}
