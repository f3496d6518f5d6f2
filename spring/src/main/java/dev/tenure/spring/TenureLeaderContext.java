package dev.tenure.spring;

import dev.tenure.client.Leadership;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.leader.Context;

/**
 * The {@link Context} a {@link TenureLeaderInitiator} passes to its candidate and in its events:
 * one per leadership (one grant of the election), so that its {@link #token()} is that grant's
 * fencing token for as long as the candidate holds the context. The initiator's {@link
 * TenureLeaderInitiator#getContext()} between leaderships is a context without one.
 *
 * <p>{@link #isLeader()} turns false the moment the leadership stops being valid by the client's
 * own conservative horizon, which is before the cluster can elect anyone else; writes made on
 * the strength of it are still fenced with {@link #fence(Duration)}, which throws once it is
 * over.
 */
public final class TenureLeaderContext implements Context {
    private final String role;
    private final @Nullable Leadership leadership;
    private final CompletableFuture<Void> yielded = new CompletableFuture<>();
    private final Runnable wake;
    private volatile boolean leading;

    private TenureLeaderContext(String role, @Nullable Leadership leadership, Runnable wake) {
        this.role = role;
        this.leadership = leadership;
        this.wake = wake;
        this.leading = leadership != null;
    }

    /** The context of {@code leadership}, leading until {@link #end()}. */
    static TenureLeaderContext of(String role, Leadership leadership, Runnable wake) {
        return new TenureLeaderContext(role, leadership, wake);
    }

    /** The context between leaderships: never the leader, without a token. */
    static TenureLeaderContext notLeading(String role) {
        return new TenureLeaderContext(role, null, () -> {});
    }

    /**
     * Whether this context's leadership is current: granted, not yet revoked, yielded or stopped,
     * and still valid by the client's horizon.
     */
    @Override
    public boolean isLeader() {
        Leadership l = leadership;
        return leading && l != null && l.isValid();
    }

    @Override
    public String getRole() {
        return role;
    }

    /**
     * Gives the leadership up: the initiator revokes it (the candidate's {@code onRevoked}),
     * resigns, and campaigns again behind the candidates already waiting. Nothing happens if this
     * context no longer leads.
     */
    @Override
    public void yield() {
        yieldLeadership();
    }

    /** {@link #yield()} under a name that can be called without a qualifier. */
    public void yieldLeadership() {
        if (leading && yielded.complete(null)) {
            wake.run();
        }
    }

    /**
     * The leadership's fencing token: strictly above every earlier leader's of this election.
     *
     * @throws IllegalStateException this is the context between leaderships
     */
    public long token() {
        return leadership().token();
    }

    /**
     * The token, only if the leadership is valid with at least {@code minRemaining} left (as
     * {@link Leadership#fence(Duration)}): the call before each write the leader makes.
     *
     * @throws dev.tenure.client.TenureException the leadership is lost, or has less left
     * @throws IllegalStateException this is the context between leaderships
     */
    public long fence(Duration minRemaining) {
        return leadership().fence(minRemaining);
    }

    /**
     * The leadership itself, for its value ({@link Leadership#proclaim}) and its {@link
     * Leadership#lost()} future. Resign through {@link #yield()}, not on it, so that the initiator
     * revokes first.
     *
     * @throws IllegalStateException this is the context between leaderships
     */
    public Leadership leadership() {
        Leadership l = leadership;
        if (l == null) {
            throw new IllegalStateException("not the leader of '" + role + "'");
        }
        return l;
    }

    CompletableFuture<Void> yielded() {
        return yielded;
    }

    /** From now on this context is not the leader, whatever its lease says. */
    void end() {
        leading = false;
    }

    @Override
    public String toString() {
        Leadership l = leadership;
        return "TenureLeaderContext[" + role + (l == null ? ", not leading" : ", token " + l.token()) + ", leader "
                + isLeader() + "]";
    }
}
