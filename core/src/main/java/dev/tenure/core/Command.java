package dev.tenure.core;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Everything that can change or read the state machine. Each command is applied at the
 * timestamp the log gave it; none carries a clock reading of its own.
 *
 * <p>Request ids: a mutating command from a session carries an id that is unique within the
 * session; the state machine remembers recent outcomes per session, so a retry with the same id
 * returns the original outcome instead of acting twice. An id of 0 opts out (no session).
 */
public sealed interface Command {
    /** A conditional KV write's version for "no condition": versions start at 1, 0 means "absent". */
    long ANY_VERSION = -1;

    /**
     * {@code secretHash}: what the session's later requests must show ({@link WithSecret}).
     * {@code principal}: who the opening client authenticated as (empty: nobody), named in lock
     * status and history and counted against {@link PrincipalLimits}.
     */
    record OpenSession(long ttlMs, String clientName, SecretHash secretHash, String principal) implements Command {
        public OpenSession(long ttlMs, String clientName) {
            this(ttlMs, clientName, SecretHash.NONE, "");
        }

        public OpenSession(long ttlMs, String clientName, SecretHash secretHash) {
            this(ttlMs, clientName, secretHash, "");
        }
    }

    /**
     * {@code command}, from a client that showed the secret whose hash is {@code secretHash}. A
     * request that names a session (a resume, an acquire, a lease renewal, a release, a write or a
     * checkpoint with a session) is applied only if this matches the hash its session was opened
     * with; otherwise it is refused as {@link Code#DENIED} and changes nothing, not even the
     * session's request cache. A command without this wrapper shows {@link SecretHash#NONE}. A
     * withdrawn wait shows the secret of the acquire it withdraws. The gateway's own commands for
     * a stream it bound (keepalives, closes) need none: the stream was bound by an open or a
     * resume that showed the secret.
     */
    record WithSecret(SecretHash secretHash, Command command) implements Command {}

    /** Renews every listed session: their deadlines move to now + TTL. */
    record KeepAlive(List<Long> sessionIds) implements Command {}

    /**
     * Ends a session. {@code end} is {@link TenureEnd#RELEASED} when the client closed it,
     * {@link TenureEnd#EXPIRED} when the client gave up at its own horizon (it may have stopped
     * mid-work, so it must not be reported as a clean release), {@link TenureEnd#DISCONNECTED}
     * when its connection closed and {@link TenureEnd#REVOKED} when the node's ACL no longer gives
     * its principal what it had; its leases end the same way.
     *
     * <p>{@code attachment}: 0 ends the session whatever connection carries it (the client asked);
     * otherwise the session ends only if that is still its current attachment. A connection that
     * closed ends the session it carried, not the one its client has since resumed elsewhere.
     */
    record CloseSession(long sessionId, TenureEnd end, long attachment) implements Command {
        public CloseSession(long sessionId, TenureEnd end) {
            this(sessionId, end, 0);
        }
    }

    /**
     * Ends, {@link TenureEnd#DISCONNECTED}, the session opened with the secret whose hash is
     * {@code secretHash}, if it was never resumed: the gateway told its client that the open failed
     * (no answer in time, a leader change) while it may have committed, so no client knows the
     * session and it would otherwise stand until its TTL. Changes nothing if no such session
     * exists, which is the usual case. Idempotent: the gateway may send it again until it commits.
     */
    record AbandonOpen(SecretHash secretHash) implements Command {}

    /**
     * Binds a live session to a new connection and renews it, as a keepalive does. Every resume
     * starts a new attachment (an open is attachment 1); closes sent for an older one change nothing.
     */
    /**
     * {@code expectedAttachment}: resume only from that attachment; 0, from any. {@code principal}:
     * who the resuming client authenticated as (empty: nobody); a revoked one resumes nothing.
     */
    record ResumeSession(long sessionId, long expectedAttachment, String principal) implements Command {
        public ResumeSession(long sessionId) {
            this(sessionId, 0);
        }

        public ResumeSession(long sessionId, long expectedAttachment) {
            this(sessionId, expectedAttachment, "");
        }
    }

    /**
     * A node's ACL reload gave {@code principal} less than before. Every session of it ends {@link
     * TenureEnd#REVOKED}, its leases too, and each lock it held stays with nobody until the
     * session's own deadline (the latest its client can still trust the lease, told or not), then
     * passes to the next waiter. With {@code barred} (the reload removed the principal), opens and
     * resumes by it are refused from then on, whatever the receiving node's ACL says, until a
     * {@link ReinstatePrincipal}.
     */
    record RevokePrincipal(String principal, boolean barred) implements Command {}

    /** Undoes a {@link RevokePrincipal}'s bar: a reload named the principal again. Idempotent. */
    record ReinstatePrincipal(String principal) implements Command {}

    /**
     * waitMs: 0 do not wait, &gt; 0 wait up to that long, &lt; 0 wait until granted or the session
     * ends. {@code policy} applies to the grant this acquire produces. {@code attempt}: which try
     * of this request id this is, from 1 (0: not counted); the highest one applied is remembered
     * with the request's outcome, for {@link CancelWait}. {@code permits}: how many leases the
     * lock admits at once (1: a plain lock; every acquirer of a name must name the same);
     * {@code shared}: a shared lease, which any number may hold unless one holds it exclusively.
     * {@code value}: a campaign's value (empty: none), which the waiter and then the lease carry
     * and status shows (see {@link Proclaim}); only an exclusive acquire of a plain lock has one.
     */
    record Acquire(
            long sessionId,
            long requestId,
            String lock,
            long waitMs,
            Policy policy,
            long attempt,
            int permits,
            boolean shared,
            ElectionValue value)
            implements Command {
        public Acquire(
                long sessionId,
                long requestId,
                String lock,
                long waitMs,
                Policy policy,
                long attempt,
                int permits,
                boolean shared) {
            this(sessionId, requestId, lock, waitMs, policy, attempt, permits, shared, ElectionValue.NONE);
        }

        public Acquire(long sessionId, long requestId, String lock, long waitMs) {
            this(sessionId, requestId, lock, waitMs, Policy.NONE, 0);
        }

        public Acquire(long sessionId, long requestId, String lock, long waitMs, Policy policy) {
            this(sessionId, requestId, lock, waitMs, policy, 0);
        }

        public Acquire(long sessionId, long requestId, String lock, long waitMs, Policy policy, long attempt) {
            this(sessionId, requestId, lock, waitMs, policy, attempt, 1, false);
        }

        /** The same acquire, tried again: its next attempt. */
        public Acquire nextAttempt() {
            return new Acquire(sessionId, requestId, lock, waitMs, policy, attempt + 1, permits, shared, value);
        }
    }

    /**
     * Turns the caller's exclusive lease of {@code lock} (held under {@code token}) into a shared
     * one, keeping the token, and admits the shared waiters at the head of the queue.
     */
    record Downgrade(long sessionId, long requestId, String lock, long token) implements Command {}

    /**
     * Renews one lease: a manual-renewal lease's deadline moves to now + its lease TTL (never past
     * its maxHold). Accepted only from the holding session with the lease's current token.
     *
     * @param maxHoldMs 0, or a new maxHold counted from now: the lease is revoked no sooner than
     *     now + maxHoldMs (a lease granted with a maxHold only; it never moves the end earlier)
     */
    record RenewLease(long sessionId, long requestId, String lock, long token, long maxHoldMs) implements Command {
        public RenewLease(long sessionId, long requestId, String lock, long token) {
            this(sessionId, requestId, lock, token, 0);
        }
    }

    /**
     * Stores {@code value} as the lock's checkpoint; accepted only if {@code token} is the lock's
     * current grant (a fenced write). Session 0 writes without dedup, like the KV. {@code
     * principal}: who the writing client authenticated as, for a write without a session (one
     * with a session is its session's); the lock's checkpoint bytes then count against its quota.
     */
    // The bytes are an opaque payload the core keeps and hands back as given; wrapping them in an
    // immutable type would cost a copy per write. Nothing compares these records by value.
    @SuppressWarnings("ArrayRecordComponent")
    record WriteCheckpoint(long sessionId, long requestId, String lock, long token, byte[] value, String principal)
            implements Command {
        public WriteCheckpoint(long sessionId, long requestId, String lock, long token, byte[] value) {
            this(sessionId, requestId, lock, token, value, "");
        }
    }

    /**
     * Replaces the value of the caller's lease of {@code lock} (an election's leader publishes a
     * new one); accepted only if {@code token} is the lock's current grant and the caller's session
     * holds it, as a release is, else NOT_OWNER and nothing changes. Deduplicated by request id.
     */
    record Proclaim(long sessionId, long requestId, String lock, long token, ElectionValue value) implements Command {}

    /**
     * Gives up a queued acquire (its client stopped waiting), or gives back the grant that raced
     * ahead of it. {@code attempt}: which try of the acquire the call that ended carried (see
     * {@link Acquire}); if a later try of the same request reached the log, it changes nothing:
     * the call that ended was cut off, and its client is waiting on the later one. 0: any try.
     */
    record CancelWait(long sessionId, long requestId, long attempt) implements Command {
        public CancelWait(long sessionId, long requestId) {
            this(sessionId, requestId, 0);
        }
    }

    /**
     * Compare-and-delete: ends the lease only if {@code token} is the lock's current grant and the
     * caller's session holds it (it ends RELEASED). With {@code force}, a forced release: the lease
     * ends REVOKED whichever session holds it, its lock delay applies, its holder is told by a
     * LeaseEnded event, and the history names the caller's session as the forcer.
     */
    record Release(long sessionId, long requestId, String lock, long token, boolean force) implements Command {}

    /**
     * A write; when {@code fenceLock} is not null, accepted only if {@code fenceToken} is that lock's
     * current grant. An unfenced write (no {@code fenceLock}) to a key last written fenced is
     * refused unless {@code overrideFence}. {@code principal}: who the writing client
     * authenticated as (empty: nobody); the key then counts against that principal's KV quota
     * ({@link PrincipalLimits}) until someone else writes it or it is deleted. {@code ifVersion}:
     * carried out only if the key's version is this (0: the key must not exist; {@link
     * #ANY_VERSION}: no check). {@code ephemeral}: the key is deleted when session {@code
     * sessionId} ends (it must not be 0).
     */
    // The bytes are an opaque payload the core keeps and hands back as given; wrapping them in an
    // immutable type would cost a copy per write. Nothing compares these records by value.
    @SuppressWarnings("ArrayRecordComponent")
    record Put(
            long sessionId,
            long requestId,
            String key,
            byte[] value,
            @Nullable String fenceLock,
            long fenceToken,
            boolean overrideFence,
            String principal,
            long ifVersion,
            boolean ephemeral)
            implements Command {
        public Put(
                long sessionId,
                long requestId,
                String key,
                byte[] value,
                @Nullable String fenceLock,
                long fenceToken,
                boolean overrideFence,
                String principal) {
            this(sessionId, requestId, key, value, fenceLock, fenceToken, overrideFence, principal, ANY_VERSION, false);
        }

        public Put(
                long sessionId,
                long requestId,
                String key,
                byte[] value,
                @Nullable String fenceLock,
                long fenceToken,
                boolean overrideFence) {
            this(sessionId, requestId, key, value, fenceLock, fenceToken, overrideFence, "");
        }

        Put(long sessionId, long requestId, String key, byte[] value, @Nullable String fenceLock, long fenceToken) {
            this(sessionId, requestId, key, value, fenceLock, fenceToken, false);
        }
    }

    /** Checked like {@link Put}, {@code ifVersion} too (but 0 never matches: there is nothing to delete). */
    record Delete(
            long sessionId,
            long requestId,
            String key,
            @Nullable String fenceLock,
            long fenceToken,
            boolean overrideFence,
            long ifVersion)
            implements Command {
        public Delete(
                long sessionId,
                long requestId,
                String key,
                @Nullable String fenceLock,
                long fenceToken,
                boolean overrideFence) {
            this(sessionId, requestId, key, fenceLock, fenceToken, overrideFence, ANY_VERSION);
        }

        Delete(long sessionId, long requestId, String key, @Nullable String fenceLock, long fenceToken) {
            this(sessionId, requestId, key, fenceLock, fenceToken, false);
        }
    }

    /** A read through the log, so it is linearizable. */
    record Get(String key) implements Command {}

    record Status(String lock) implements Command {}

    record Stats() implements Command {}

    /**
     * One page of the lock listing, a read through the log like {@link Status}: the locks that are
     * held, waited for or in their lock delay whose names start with {@code prefix} (empty: every
     * name) and come after {@code after} (empty: from the first), in name order. At most {@code
     * limit} locks and, by a conservative estimate of their wire size, {@code bytesMax} bytes; never
     * fewer than one lock when one matches, so a listing always moves on. See {@link LockListing}.
     */
    record ListLocks(String prefix, String after, int limit, long bytesMax) implements Command {}

    /**
     * The limits, and the quotas of named principals, that node {@code nodeId} runs with, each by
     * the name its refusals give ({@link Limits#names()}; a limit not named takes its default, a
     * quota's limit not named the node-wide per-principal value). The first in the log become the
     * cluster's. After that, values that differ are refused, naming each difference, unless
     * {@code change}: then they are put in force if the state holds no more than they allow, and
     * refused, changing nothing, if it does. See {@link LimitsCommands}.
     */
    record SetLimits(
            java.util.SortedMap<String, Long> limits,
            java.util.SortedMap<String, java.util.SortedMap<String, Long>> quotas,
            boolean change,
            int nodeId)
            implements Command {
        public SetLimits {
            limits = java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(limits));
            java.util.TreeMap<String, java.util.SortedMap<String, Long>> q = new java.util.TreeMap<>();
            quotas.forEach((p, v) -> q.put(p, java.util.Collections.unmodifiableSortedMap(new java.util.TreeMap<>(v))));
            quotas = java.util.Collections.unmodifiableSortedMap(q);
        }

        /** {@code limits} and {@code quotas} by name, as a node proposes them. */
        public static SetLimits of(
                Limits limits, java.util.SortedMap<String, PrincipalLimits> quotas, boolean change, int nodeId) {
            java.util.TreeMap<String, java.util.SortedMap<String, Long>> q = new java.util.TreeMap<>();
            quotas.forEach((p, v) -> q.put(p, SnapshotLimits.perPrincipal(v)));
            return new SetLimits(limits.values(), q, change, nodeId);
        }
    }
}
