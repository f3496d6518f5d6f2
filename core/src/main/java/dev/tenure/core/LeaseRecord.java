package dev.tenure.core;

import org.jspecify.annotations.Nullable;

/**
 * The state machine's record of a lock's current lease: the holding session, the token, when it
 * was granted and under which policy. A plain {@link LockRecord} has at most one (a semaphore up
 * to its permits, a lock held shared any number); when a lease ends the lock drops it and adds a
 * {@link TenureRecord} of it to its bounded history.
 *
 * <p>It also keeps what the lock's previous tenure was at the grant (its end, its token, the
 * checkpoint then), because the lock's own checkpoint moves on while the lease runs: so
 * {@link #grant} rebuilds exactly the {@link Grant} the holder was first given, which a
 * re-entrant acquire by the same session gets again. The lease's own deadlines (manual renewal,
 * maxHold) are not here but in the {@link LockRecord}, which moves them on renewal and on a new
 * term.
 *
 * <p>{@code shared}: one of possibly many shared leases of the lock, which exclude an exclusive
 * one. A semaphore's leases are exclusive leases, up to the lock's permits of them.
 *
 * <p>{@code value}: an election leader's published value (NONE: none), set by its campaign and
 * replaced by {@link Command.Proclaim}; only an exclusive lease of a plain lock has one.
 *
 * <p>It is not a {@link Grant} with a flag added: a grant is the value its holder was told, fixed
 * and public (the wire maps it field for field), and names its lock and its session's TTL, which
 * the lock and the session already keep; this record is the state machine's own, replaced on a
 * downgrade or a proclaim, and one is kept per lease, so the lock's name and the TTL are not
 * stored again in each.
 */
record LeaseRecord(
        long sessionId,
        long token,
        long grantedAtMs,
        TenureEnd previousEnd,
        long previousToken,
        @Nullable Checkpoint previousCheckpoint,
        Policy policy,
        boolean shared,
        ElectionValue value) {

    /** The same lease (same token, same grant) held shared from now on: a downgrade. */
    LeaseRecord downgraded() {
        return new LeaseRecord(
                sessionId, token, grantedAtMs, previousEnd, previousToken, previousCheckpoint, policy, true, value);
    }

    /** The same lease (same token, same grant) publishing {@code next}: a proclaim. */
    LeaseRecord withValue(ElectionValue next) {
        return new LeaseRecord(
                sessionId, token, grantedAtMs, previousEnd, previousToken, previousCheckpoint, policy, shared, next);
    }

    Grant grant(String lock, long ttlMs) {
        return new Grant(
                lock,
                token,
                sessionId,
                grantedAtMs,
                ttlMs,
                previousEnd,
                previousToken,
                previousCheckpoint,
                policy,
                value);
    }
}
