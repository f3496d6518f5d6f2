package dev.tenure.client.internal;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A session's horizon: the send time of its last acknowledged renewal plus its lifetime
 * (TTL − drift margin), on the client's monotonic clock. Not thread-safe; the owner guards it.
 *
 * <p>Why this is always before the server can grant the lock to anyone else: the server starts
 * the session's deadline when it commits the renewal, which happens after the client sent it, so
 * server deadline ≥ send time + TTL measured on the server's clock; a new leader restarts every
 * deadline at now + TTL, which only moves it later. As long as the two clocks drift apart by
 * less than the margin over one TTL, send time + TTL − margin comes first. Using the send time
 * (not the ack's arrival) also charges the whole round trip and any pause to the client.
 *
 * <p>With a disconnect grace, leases are trusted only up to {@link #validUntilNanos()}: the send
 * time of the last request the session's stream answered (an Open or Resume, a renewal, an echo)
 * plus the grace (less its own margin). The node sent that answer while the stream still carried
 * the session, so if the connection closed afterwards (a reset, not a dead process), the node
 * ends the session no earlier than the grace after the answer, which is after this bound. The
 * horizon alone would overrun it: a reset stream gives no renewal, but the TTL deadline would run
 * on. A proof never moves back, across streams too: a stream the session left can no longer end
 * it (the node's close names the attachment it carried).
 */
public final class Horizon {
    private final TreeMap<Long, Long> sendNanosBySeq = new TreeMap<>();
    private long lifetimeNanos;
    private long valueNanos;
    /** Send time of the latest request a stream answered while it carried the session. */
    private long proofNanos;
    /** Negative: no grace bound (the node ends the session at once when the connection closes). */
    private long graceLifetimeNanos = -1;

    /** The session was opened by a request sent at {@code sendNanos}. */
    public void start(long sendNanos, long lifetimeNanos) {
        this.lifetimeNanos = lifetimeNanos;
        this.valueNanos = sendNanos + lifetimeNanos;
        this.proofNanos = sendNanos;
    }

    public long valueNanos() {
        return valueNanos;
    }

    /**
     * The node's disconnect grace less its margin, or negative for none. Never longer than the
     * lifetime: a grace beyond the TTL changes nothing, the TTL ends the session first.
     */
    public void grace(long graceLifetimeNanos) {
        this.graceLifetimeNanos = graceLifetimeNanos < 0 ? -1 : Math.min(graceLifetimeNanos, lifetimeNanos);
    }

    public long graceLifetimeNanos() {
        return graceLifetimeNanos;
    }

    /** Until when leases may be trusted: the horizon, or earlier by the grace bound. */
    public long validUntilNanos() {
        if (graceLifetimeNanos < 0) {
            return valueNanos;
        }
        long bound = proofNanos + graceLifetimeNanos;
        return bound - valueNanos < 0 ? bound : valueNanos;
    }

    /** A stream answered, while it carried the session, a request sent at {@code sendNanos}. */
    public void proved(long sendNanos) {
        if (sendNanos - proofNanos > 0) {
            proofNanos = sendNanos;
        }
    }

    public long lifetimeNanos() {
        return lifetimeNanos;
    }

    /** True once {@code nowNanos} has reached the horizon. */
    public boolean passed(long nowNanos) {
        return nowNanos - valueNanos >= 0;
    }

    /**
     * A renewal sent at {@code sendNanos} was acknowledged. Never moves the horizon back: an ack
     * for an older renewal must not undo what a newer one gave.
     */
    public boolean renewed(long sendNanos) {
        proved(sendNanos);
        long candidate = sendNanos + lifetimeNanos;
        if (candidate - valueNanos > 0) {
            valueNanos = candidate;
            return true;
        }
        return false;
    }

    public void sent(long seq, long sendNanos) {
        sendNanosBySeq.put(seq, sendNanos);
    }

    /**
     * The ack for {@code seq} arrived: advances the horizon from that keepalive's send time and
     * forgets it and every older one (a later renewal covers them). Returns the send time, or
     * empty for a seq that is not outstanding (a duplicate, or older than one already acked).
     */
    public OptionalLong acked(long seq) {
        Long sendNanos = sendNanosBySeq.get(seq);
        if (sendNanos == null) {
            return OptionalLong.empty();
        }
        sendNanosBySeq.headMap(seq, true).clear();
        renewed(sendNanos);
        return OptionalLong.of(sendNanos);
    }

    /** True if some keepalive has waited at least {@code graceNanos} for its ack. */
    public boolean overdue(long nowNanos, long graceNanos) {
        Map.Entry<Long, Long> oldest = sendNanosBySeq.firstEntry();
        return oldest != null && nowNanos - oldest.getValue() >= graceNanos;
    }

    /** The stream that carried them is gone: their acks can never arrive. */
    public void forgetOutstanding() {
        sendNanosBySeq.clear();
    }
}
