package dev.tenure.server.cluster;

import java.util.concurrent.TimeUnit;

/**
 * The read lease, Δ ({@code readLeaseMs}, agreed with the limits; 0 turns it off): while it is
 * proven, the leader answers a read from its replica at once, without waiting for an entry of the log.
 * Everything here is measured on this node's own monotonic clock; no clock is compared across
 * nodes. What it assumes: each node's clock runs within ρ = 1/{@link #DRIFT_DIVISOR} of real time.
 *
 * <p>The proof. A probe takes the time m, then the correlation id n the gateway's next command will
 * carry. Once this replica applies a command of its gateway with an id at or above n, that command
 * was appended after m and acknowledged by a quorum after m. A member that voted for a newer term
 * refuses the older term's entries from then on, so every election of a later term ended after
 * m. The leader may answer reads while less than Δ(1 − ρ) of its clock has passed since m: at most
 * Δ of real time. A proof counts only from a command applied after this replica applied the new
 * term event that names this node leader, and while it still leads: one of an earlier term, or
 * of a term this node followed, proves nothing about the current one.
 *
 * <p>The quiet period. Every member, whenever a term starts ({@link #newTerm}), when it becomes
 * leader, when it starts, and when Δ changes, shows nothing of what it applies for Δ(1 + ρ) of its
 * own clock, at least Δ of real time: no reply or event leaves its service, no read is answered,
 * no watch hears a change. The election that started the term ended after the old leader's last
 * proof, so an old leader's lease ran out before anything of a newer term is visible anywhere.
 * A change of Δ is quiet for the old Δ: a replica that applies a shorter lease may be elected
 * before the old leader applied it.
 *
 * <p>Owned by the service thread, which tells it of terms, roles, limits and proofs; gateway
 * threads read only {@link #mayServe}, a hint whether a read can skip asking for a barrier.
 */
final class ReadLease {

    /** ρ as a fraction: the clock-rate bound the clients' default drift margin (a twentieth of the TTL) assumes too. */
    static final long DRIFT_DIVISOR = 20;

    private long leaseNanos;
    private boolean leading;
    /** This replica's last applied new term event named this node leader, and it has led since. */
    private boolean ownTerm;

    private boolean proven;
    private long provenAtNanos;
    private boolean quiet;
    private long quietUntilNanos;

    /** For gateway threads: until when (nanoTime) the last proof lets a read be answered at once. */
    private volatile long servingUntilNanos;

    private volatile boolean servingPublished;

    /** When the service starts: Δ from the replica's limits, and the role it starts in; quiet. */
    void start(long leaseMs, boolean leader, long nowNanos) {
        leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMs);
        leading = leader;
        quietFor(nowNanos);
    }

    /** After the replica applied its limits: Δ from them. A change is quiet for the old Δ. */
    void limit(long leaseMs, long nowNanos) {
        long next = TimeUnit.MILLISECONDS.toNanos(leaseMs);
        if (next != leaseNanos) {
            quietFor(nowNanos);
            leaseNanos = next;
            unprove();
        }
    }

    /** The replica applied a new term event; {@code self}: it names this node leader. */
    void newTerm(boolean self, long nowNanos) {
        quietFor(nowNanos);
        ownTerm = self;
        unprove();
    }

    /**
     * The service's role changed. Becoming leader is quiet; leaving it ends the term's proofs. The
     * new term event may come before or after the role (Aeron sets the role during the election,
     * the event is the term's first entry), so becoming leader keeps what the event said.
     */
    void role(boolean leader, long nowNanos) {
        if (leader && !leading) {
            quietFor(nowNanos);
        }
        if (!leader) {
            ownTerm = false;
        }
        leading = leader;
        unprove();
    }

    /** A command of the gateway's, at or above a probe's id, was applied; the probe was taken at {@code probeNanos}. */
    void proved(long probeNanos) {
        if (!enabled() || !leading || !ownTerm) {
            return;
        }
        if (!proven || probeNanos - provenAtNanos > 0) {
            provenAtNanos = probeNanos;
            proven = true;
            servingUntilNanos = probeNanos + window();
            servingPublished = true;
        }
    }

    boolean enabled() {
        return leaseNanos > 0;
    }

    /** True while this member shows nothing of what it applies. */
    boolean quiet(long nowNanos) {
        if (quiet && nowNanos - quietUntilNanos >= 0) {
            quiet = false;
        }
        return quiet;
    }

    /** True while a quiet period may last: false, without a clock read, when none was started. */
    boolean mayBeQuiet() {
        return quiet;
    }

    /** True if a read may be answered now from the replica, without an entry of its own. */
    boolean valid(long nowNanos) {
        return proven && leading && ownTerm && !quiet(nowNanos) && nowNanos - provenAtNanos < window();
    }

    /** True if the lease should be proven again: none yet in this term, or half of it gone. */
    boolean renewalDue(long nowNanos) {
        return enabled() && leading && ownTerm && (!proven || nowNanos - provenAtNanos >= window() / 2);
    }

    /** For any thread: whether a read arriving at {@code nowNanos} will likely be answered without a barrier. */
    boolean mayServe(long nowNanos) {
        return servingPublished && nowNanos - servingUntilNanos < 0;
    }

    /** Δ(1 − ρ): how long a proof lets reads be answered, on this node's clock. */
    private long window() {
        return leaseNanos - leaseNanos / DRIFT_DIVISOR;
    }

    private void quietFor(long nowNanos) {
        if (!enabled()) {
            return;
        }
        long until = nowNanos + leaseNanos + leaseNanos / DRIFT_DIVISOR;
        if (!quiet || until - quietUntilNanos > 0) {
            quietUntilNanos = until;
        }
        quiet = true;
    }

    private void unprove() {
        proven = false;
        servingPublished = false;
    }
}
