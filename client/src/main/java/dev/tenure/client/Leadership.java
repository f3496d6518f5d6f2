package dev.tenure.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * This session's leadership of an election: the exclusive lease of the election's lock, granted
 * to its first candidate in FIFO order ({@link Session#campaign}). It is a {@link Lease} in every
 * respect that matters for safety: {@link #token()} fences writes as a lock's token does, {@link
 * #fence(Duration)} is the one call before each mutation, {@link #lost()} completes at the local
 * horizon, before the cluster can elect anyone else. {@link #resign()} hands over to the next
 * candidate at once. AutoCloseable: {@link #close()} resigns.
 */
public final class Leadership implements AutoCloseable {
    private final Lease lease;
    private volatile byte[] value;

    Leadership(Lease lease, byte[] value) {
        this.lease = lease;
        this.value = value.clone();
    }

    /** The election's name (its lock's). */
    public String election() {
        return lease.lock();
    }

    /** The leader's fencing token: the grant's token, strictly above every earlier leader's. */
    public long token() {
        return lease.token();
    }

    /** The value this leader last published (a copy). */
    public byte[] value() {
        return value.clone();
    }

    /** The lease this leadership is. */
    public Lease lease() {
        return lease;
    }

    /** Whether this session still leads by its own conservative horizon. */
    public boolean isValid() {
        return lease.isValid();
    }

    /** As {@link Lease#fence(Duration)}: the token, only if the leadership has {@code minRemaining} left. */
    public long fence(Duration minRemaining) {
        return lease.fence(minRemaining);
    }

    /** Completes with the reason when the leadership is lost (as {@link Lease#lost()}). */
    public CompletableFuture<LossReason> lost() {
        return lease.lost();
    }

    /**
     * Publishes {@code newValue} in place of the current one. Owner-bound: once another leader
     * was elected it is refused with {@link StaleTokenException} and nothing changes. At most
     * electionValueBytesMax (1 KiB by default).
     */
    public void proclaim(byte[] newValue) {
        byte[] copy = Objects.requireNonNull(newValue, "newValue").clone();
        lease.proclaim(copy);
        value = copy;
    }

    /** Gives up the leadership; the next candidate is elected in the same step. Idempotent. */
    public void resign() {
        lease.release();
    }

    @Override
    public void close() {
        resign();
    }

    @Override
    public String toString() {
        return "Leadership[" + election() + ", token " + token() + "]";
    }
}
