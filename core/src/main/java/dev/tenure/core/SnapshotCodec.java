package dev.tenure.core;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * The versioned binary snapshot format. Version 9, all integers big-endian. This build writes
 * version 9 and reads versions 9, 8 (the previous one; docs/architecture.md says what each new
 * version must ship with), 7, 6, 5 and 4, and refuses any other version with an error that names it:
 *
 * <pre>
 * header   magic i32 "TNUR", version i32 = 9
 * clock    nowMs i64, lastToken i64, lastSessionId i64, staleWritesRejected i64
 * names    count i32, ascending: str (every client name and principal below, once: see SnapshotNames)
 * sessions count i32, ascending id: id i64, ttlMs i64, clientName name, principal name,
 *          secretHashHi i64, secretHashLo i64, deadlineMs i64, attachment i64,
 *          highestEvictedRequestId i64, cache count i32, ascending request id: requestId i64, outcome,
 *          attempts count i32, ascending request id (each cached): requestId i64, attempt i64
 * locks    count i32, ascending name: name str, hasLease u8,
 *          [lease: sessionId i64, token i64, grantedAtMs i64, previousEnd u8, previousToken i64,
 *           previousCheckpoint ckpt, policy, renewDeadlineMs i64, maxHoldAtMs i64],
 *          waiter count i32, FIFO: sessionId i64, requestId i64, sinceMs i64, deadlineMs i64, policy,
 *          history count i32, oldest first: sessionId i64, token i64, grantedAtMs i64, endedAtMs i64, end u8,
 *            forcedBySessionId i64, forcedByClient name, principal name, forcedByPrincipal name,
 *          lastEnd u8, lastToken i64, delayUntilMs i64, checkpoint ckpt,
 *          staleWrites: count i64, lastToken i64, lastCurrentToken i64, lastTarget str, lastAtMs i64,
 *          semaphores: permits, the other leases, shared flags (see {@link SnapshotSemaphores})
 * idle     count i32, oldest first: lock name str
 * kv       count i32, ascending key: key str, value bytes, token i64, lock str (nullable), writtenAtMs i64,
 *          principal name, [v8: version i64, ephemeralSessionId i64]
 * limits   the limits in force and the quotas of named principals: see {@link SnapshotLimits}
 * charges  who each lock charges for its lock delay and its checkpoints: see {@link SnapshotCharges}
 * barred   count i32, ascending: principal str (revoked principals: see Revocations)
 * revision [v9] revision i64 (see {@link #writeRevision})
 * elections [v9] the values election leases and waiters carry: see {@link SnapshotElections}
 * trailer  CRC32 of everything before it, i32
 *
 * str = i32 byte length (-1 for null) + UTF-8; bytes = i32 length + bytes; name = i32 index in names
 * policy = lockDelayMs i64, maxHoldMs i64, leaseTtlMs i64
 * ckpt = present u8, [value bytes, token i64, writtenAtMs i64]
 * outcome = u8 tag: 0 waiting(lock str) | 5 granted(token i64) | 2 ok
 *           | 3 rejected(code u8, message str, currentToken i64) | 4 renewed(remainingMs i64)
 *           | 6 written(version i64) [v8]
 * </pre>
 *
 * <p>Session waits and held locks, the deadline index and the session deadline entries are not
 * stored: they are rebuilt from the records above, so a snapshot cannot disagree with itself.
 * The encoding is canonical (sorted, no optional padding) and decode refuses out-of-order keys,
 * so {@code encode(decode(s))} equals {@code s} byte for byte. Enums are written as their index
 * in the tables below, not their ordinal, so reordering an enum cannot silently change the
 * meaning of a snapshot already written; a new constant must be appended to its table.
 *
 * <p>Version 9's additions, two blocks of their own after barred. First the revision counter
 * that numbers every {@link Change} ({@link #writeRevision} and {@link #readRevision}); then the
 * elections block ({@link SnapshotElections}), the values a campaign's waiter and an election's
 * lease carry. Version 8 is version 9 without them: its state is read with revision 0 (the
 * counter goes on from there; a watcher cannot tell, because a node's kept changes start empty on
 * every start, and a watch that resumes from a revision the node did not keep is refused, never
 * served with a gap), and every lease and waiter without a value.
 *
 * <p>Version 8's additions: the KV's versions and ephemeral keys (kept in {@link #writeKvVersion8}
 * and {@link #readEphemeralOwner}): each KV entry ends with its version (at least 1) and the
 * session that holds it as ephemeral (0: none; otherwise a session of the snapshot), a cached
 * outcome may be tag 6, a KV write with the version it reported, and the codes table gains
 * VERSION_MISMATCH and EPHEMERAL_CONFLICT; and each lock's semaphores block (see {@link
 * SnapshotSemaphores}). Version 7 is version 8 without them: its KV entries are read at version 1
 * with no ephemeral owner, and its locks with permits 1, their lease exclusive and no shared
 * waiter, which is what its build kept (no versions, no ephemeral keys, no semaphores).
 *
 * <p>Version 6 is version 7 without the limits, charges and barred blocks: the limits a member
 * restores it with are in force until the log sets them, as they were when it was written; its
 * locks charge no principal; and none is barred, as no build that wrote it could bar one.
 *
 * <p>Version 5 is version 6 without the names table (every name is a str where it is used), without
 * the principal of a KV entry, and with a cached grant written
 * whole (tag 1: lock str, token, sessionId, grantedAtMs, ttlMs i64, previousEnd u8, previousToken
 * i64, previousCheckpoint ckpt, policy) instead of its token: a version 5 entry is read as written
 * without a principal (it counts against no principal's quota), a cached grant as its token. Its
 * cached refusals are read with their messages cut as {@link Outcome} cuts them.
 *
 * <p>Version 4 is version 5 without the principal and secret hash of a session and the two
 * principals of a history record: a version 4 session is read with no principal and {@link
 * SecretHash#NONE} (it accepts any request, as every session did then), a history record with
 * empty principals.
 *
 * <p>What the limits count is derived, not stored: the KV's bytes and each principal's keys, the
 * waiters and the checkpoint bytes are counted again as the records are read. A lease whose
 * checkpoint is the lock's (the holder wrote none since) is read as sharing it, as it did when
 * written, so the checkpoint is counted and kept once.
 */
final class SnapshotCodec {
    static final int MAGIC = 0x544E5552; // "TNUR"
    static final int VERSION = 9;
    /** The previous format version, still read (see {@link #decode}). */
    static final int VERSION_PREVIOUS = 8;
    /** The first version with the elections block. */
    private static final int VERSION_ELECTIONS = 9;
    /** The first version with the KV's versions and ephemeral owners, and the written outcome. */
    static final int VERSION_KV_VERSIONS = 8;
    /** The version before the semaphores block, still written for tests of a plain state. */
    private static final int VERSION_BEFORE_SEMAPHORES = 7;
    /** The first version with the revision block. */
    private static final int VERSION_REVISION = 9;
    /** The first version with the limits, charges and barred blocks. */
    private static final int VERSION_LIMITS = 7;
    /** The first version with each lock's semaphores block. */
    private static final int VERSION_SEMAPHORES = 8;
    /** The first version with the names table and the principal of a KV entry. */
    private static final int VERSION_NAMES = 6;
    /** The version before it, still read too. */
    static final int VERSION_OLDEST = 4;

    private static final int HEADER_BYTES = 8;
    private static final int CHECKSUM_BYTES = 4;

    static final TenureEnd[] ENDS = {
        TenureEnd.NONE, TenureEnd.RELEASED, TenureEnd.EXPIRED, TenureEnd.DISCONNECTED, TenureEnd.REVOKED
    };
    static final Code[] CODES = {
        Code.OK,
        Code.HELD,
        Code.NOT_OWNER,
        Code.STALE_TOKEN,
        Code.SESSION_LOST,
        Code.NOT_FOUND,
        Code.LIMIT,
        Code.REQUEST_TOO_OLD,
        Code.INVALID,
        Code.CANCELLED,
        Code.KEY_FENCED,
        Code.DENIED,
        Code.VERSION_MISMATCH,
        Code.EPHEMERAL_CONFLICT
    };

    private SnapshotCodec() {}

    /** Counted first, then written into an array of exactly its size (see {@link SnapshotWriter}). */
    static byte[] encode(State state) {
        return encode(state, VERSION);
    }

    /**
     * Encodes as {@code version}: {@link #VERSION}, or {@link #VERSION_PREVIOUS} for a state that
     * version can hold (no election value; the revision reads back as 0), or version 7 for one that also has no lock with more
     * than one lease, no shared lease or waiter and permits 1: which is how the tests make a
     * previous version's snapshot of a given state. Version 7 drops the KV's versions and
     * ephemeral owners, which it reads back as version 1 and none.
     */
    static byte[] encode(State state, int version) {
        boolean writable = version == VERSION
                || (version == VERSION_PREVIOUS && SnapshotElections.none(state))
                || (version == VERSION_BEFORE_SEMAPHORES
                        && SnapshotElections.none(state)
                        && SnapshotSemaphores.plain(state));
        if (!writable) {
            throw new IllegalArgumentException("cannot write this state as version " + version);
        }
        SnapshotNames names = SnapshotNames.of(state);
        SnapshotWriter counted = SnapshotWriter.counting();
        write(counted, state, names, version);
        SnapshotWriter w = SnapshotWriter.exactly(counted.size());
        write(w, state, names, version);
        return w.finishWithChecksum();
    }

    private static void write(SnapshotWriter w, State state, SnapshotNames names, int version) {
        w.i32(MAGIC);
        w.i32(version);
        w.i64(state.nowMs);
        w.i64(state.lastToken);
        w.i64(state.sessions.lastSessionId());
        w.i64(state.staleWritesRejected);
        names.writeTable(w);
        w.i32(state.sessions.size());
        for (SessionRecord s : state.sessions.all()) {
            writeSession(w, s, names, version);
        }
        w.i32(state.locks.size());
        for (LockRecord lock : state.locks.all()) {
            writeLock(w, lock, names);
            if (version >= VERSION_SEMAPHORES) {
                SnapshotSemaphores.write(w, lock);
            }
        }
        w.i32(state.locks.idleCount());
        for (String name : state.locks.idleOrder()) {
            w.string(name);
        }
        w.i32(state.kv.size());
        for (FencedKv.Entry e : state.kv.all()) {
            w.string(e.key());
            w.bytes(e.value());
            w.i64(e.token());
            w.string(e.lock());
            w.i64(e.writtenAtMs());
            names.write(w, e.principal());
            if (version >= VERSION_KV_VERSIONS) {
                writeKvVersion8(w, e);
            }
        }
        SnapshotLimits.write(w, state);
        SnapshotCharges.write(w, state);
        w.i32(state.barredPrincipals.size());
        for (String principal : state.barredPrincipals) {
            w.string(principal);
        }
        if (version >= VERSION_REVISION) {
            writeRevision(w, state);
        }
        if (version >= VERSION_ELECTIONS) {
            SnapshotElections.write(w, state);
        }
    }

    /** Version 9's revision block: the counter of {@link Change}s applied. */
    private static void writeRevision(SnapshotWriter w, State state) {
        w.i64(state.revision);
    }

    private static void readRevision(SnapshotReader r, State state) {
        long revision = r.i64();
        if (revision < 0) {
            throw corrupt("negative revision " + revision);
        }
        state.revision = revision;
    }

    private static void readBarred(SnapshotReader r, State state) {
        int count = r.count(4);
        for (int i = 0; i < count; i++) {
            String principal = r.nonNullString();
            if (!state.barredPrincipals.isEmpty() && principal.compareTo(state.barredPrincipals.last()) <= 0) {
                throw corrupt("barred principals out of order at " + principal);
            }
            state.barredPrincipals.add(principal);
        }
    }

    static State decode(byte[] snapshot, Limits limits) {
        SnapshotReader r = checkedBody(snapshot);
        int version = version(snapshot);
        State state = new State(limits, r.i64(), r.i64(), r.i64());
        state.staleWritesRejected = r.i64();
        SnapshotNames names = version >= VERSION_NAMES ? SnapshotNames.readTable(r) : SnapshotNames.inline();
        int sessions = r.count(40);
        long previousId = 0;
        for (int i = 0; i < sessions; i++) {
            SessionRecord s = readSession(r, version, names);
            if (s.id <= previousId || s.id > state.sessions.lastSessionId()) {
                throw corrupt("session id " + s.id + " out of order or above lastSessionId");
            }
            previousId = s.id;
            state.sessions.restore(s);
            state.deadlines.addSession(s.id, s.deadlineMs);
        }
        readLocks(r, state, version, names);
        int idle = r.count(4);
        for (int i = 0; i < idle; i++) {
            state.locks.restoreIdle(r.nonNullString());
        }
        readKv(r, state, version, names);
        if (version >= VERSION_LIMITS) {
            SnapshotLimits.read(r, state);
            SnapshotCharges.read(r, state);
            readBarred(r, state);
        }
        if (version >= VERSION_REVISION) {
            readRevision(r, state);
        }
        if (version >= VERSION_ELECTIONS) {
            SnapshotElections.read(r, state);
        }
        r.expectEnd();
        shareWaitingLockNames(state);
        return state;
    }

    /** Checks header and checksum, and returns a reader positioned at the body. */
    private static SnapshotReader checkedBody(byte[] snapshot) {
        if (snapshot == null || snapshot.length < HEADER_BYTES + CHECKSUM_BYTES) {
            throw new IllegalArgumentException(
                    "snapshot truncated: " + (snapshot == null ? 0 : snapshot.length) + " bytes");
        }
        int bodyEnd = snapshot.length - CHECKSUM_BYTES;
        SnapshotReader body = new SnapshotReader(snapshot, bodyEnd);
        int magic = body.i32();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("not a Tenure snapshot: magic " + Integer.toHexString(magic));
        }
        int version = body.i32();
        if (version < VERSION_OLDEST || version > VERSION) {
            // Before the checksum and the body: a snapshot from a build of another version is
            // reported as that, not as corruption, and no field is read under the wrong layout.
            throw new IllegalArgumentException("unsupported snapshot version " + version
                    + ": this build reads versions " + VERSION_OLDEST + " to " + VERSION + " only");
        }
        CRC32 crc = new CRC32();
        crc.update(snapshot, 0, bodyEnd);
        int stored = new SnapshotReader(Arrays.copyOfRange(snapshot, bodyEnd, snapshot.length), CHECKSUM_BYTES).i32();
        if (stored != (int) crc.getValue()) {
            throw new IllegalArgumentException("snapshot checksum mismatch: corrupt or truncated");
        }
        return body;
    }

    /** The header's version; {@link #checkedBody} has checked that it is one this build reads. */
    private static int version(byte[] snapshot) {
        SnapshotReader header = new SnapshotReader(snapshot, HEADER_BYTES);
        header.i32();
        return header.i32();
    }

    private static void writeSession(SnapshotWriter w, SessionRecord s, SnapshotNames names, int version) {
        w.i64(s.id);
        w.i64(s.ttlMs);
        names.write(w, s.clientName);
        names.write(w, s.principal);
        w.i64(s.secretHash().hi());
        w.i64(s.secretHash().lo());
        w.i64(s.deadlineMs);
        w.i64(s.attachment);
        w.i64(s.requests.highestEvictedId());
        w.i32(s.requests.size());
        for (Map.Entry<Long, Outcome> e : s.requests.entries().entrySet()) {
            w.i64(e.getKey());
            OutcomeCodec.write(w, e.getValue(), version);
        }
        w.i32(s.requests.attempts().size());
        for (Map.Entry<Long, Long> e : s.requests.attempts().entrySet()) {
            w.i64(e.getKey());
            w.i64(e.getValue());
        }
    }

    private static SessionRecord readSession(SnapshotReader r, int version, SnapshotNames names) {
        long id = r.i64();
        long ttlMs = r.i64();
        String clientName = names.read(r);
        boolean v4 = version == VERSION_OLDEST;
        String principal = v4 ? "" : names.read(r);
        SecretHash secretHash = v4 ? SecretHash.NONE : new SecretHash(r.i64(), r.i64());
        long deadlineMs = r.i64();
        long attachment = r.i64();
        if (attachment < 1) {
            throw corrupt("session " + id + " attachment " + attachment);
        }
        long highestEvicted = r.i64();
        int entries = r.count(9);
        TreeMap<Long, Outcome> outcomes = new TreeMap<>();
        for (int i = 0; i < entries; i++) {
            long requestId = r.i64();
            if (!outcomes.isEmpty() && requestId <= outcomes.lastKey()) {
                throw corrupt("request ids out of order in session " + id);
            }
            outcomes.put(requestId, OutcomeCodec.read(r));
        }
        TreeMap<Long, Long> attempts = new TreeMap<>();
        int tried = r.count(16);
        for (int i = 0; i < tried; i++) {
            long requestId = r.i64();
            long attempt = r.i64();
            if (!outcomes.containsKey(requestId)
                    || attempt < 1
                    || (!attempts.isEmpty() && requestId <= attempts.lastKey())) {
                throw corrupt("attempt " + attempt + " of request " + requestId + " in session " + id);
            }
            attempts.put(requestId, attempt);
        }
        return new SessionRecord(
                id,
                ttlMs,
                clientName,
                principal,
                secretHash,
                deadlineMs,
                attachment,
                new RequestCache(outcomes, attempts, highestEvicted));
    }

    private static void writeLock(SnapshotWriter w, LockRecord lock, SnapshotNames names) {
        w.string(lock.name);
        w.bool(lock.lease != null);
        if (lock.lease != null) {
            w.i64(lock.lease.sessionId());
            w.i64(lock.lease.token());
            w.i64(lock.lease.grantedAtMs());
            w.u8(index(ENDS, lock.lease.previousEnd()));
            w.i64(lock.lease.previousToken());
            writeCheckpoint(w, lock.lease.previousCheckpoint());
            writePolicy(w, lock.lease.policy());
            w.i64(lock.renewDeadlineMs);
            w.i64(lock.maxHoldAtMs);
        }
        w.i32(lock.waiterCount());
        for (Waiter x : lock.waiters()) {
            w.i64(x.sessionId());
            w.i64(x.requestId());
            w.i64(x.sinceMs());
            w.i64(x.deadlineMs());
            writePolicy(w, x.policy());
        }
        w.i32(lock.historySize());
        for (TenureRecord t : lock.history()) {
            w.i64(t.sessionId());
            w.i64(t.token());
            w.i64(t.grantedAtMs());
            w.i64(t.endedAtMs());
            w.u8(index(ENDS, t.end()));
            w.i64(t.forcedBySessionId());
            names.write(w, t.forcedByClient());
            names.write(w, t.principal());
            names.write(w, t.forcedByPrincipal());
        }
        w.u8(index(ENDS, lock.lastEnd));
        w.i64(lock.lastToken);
        w.i64(lock.delayUntilMs);
        writeCheckpoint(w, lock.checkpoint);
        StaleWrites sw = lock.staleWrites;
        w.i64(sw.count());
        w.i64(sw.lastToken());
        w.i64(sw.lastCurrentToken());
        w.string(sw.lastTarget());
        w.i64(sw.lastAtMs());
    }

    static void writePolicy(SnapshotWriter w, Policy p) {
        w.i64(p.lockDelayMs());
        w.i64(p.maxHoldMs());
        w.i64(p.leaseTtlMs());
    }

    static Policy readPolicy(SnapshotReader r) {
        Policy p = Policy.of(r.i64(), r.i64(), r.i64());
        if (p.lockDelayMs() < 0 || p.maxHoldMs() < 0 || p.leaseTtlMs() < 0) {
            throw corrupt("negative policy " + p);
        }
        return p;
    }

    static void writeCheckpoint(SnapshotWriter w, @Nullable Checkpoint c) {
        w.bool(c != null);
        if (c != null) {
            w.bytes(c.value());
            w.i64(c.token());
            w.i64(c.writtenAtMs());
        }
    }

    static @Nullable Checkpoint readCheckpoint(SnapshotReader r) {
        if (!r.bool()) {
            return null;
        }
        return new Checkpoint(r.bytes(), r.i64(), r.i64());
    }

    private static void readLocks(SnapshotReader r, State state, int version, SnapshotNames names) {
        int count = r.count(22);
        String previous = null;
        for (int i = 0; i < count; i++) {
            LockRecord lock = new LockRecord(r.nonNullString());
            if (previous != null && lock.name.compareTo(previous) <= 0) {
                throw corrupt("lock names out of order at " + lock.name);
            }
            previous = lock.name;
            if (r.bool()) {
                readLease(r, state, lock);
            }
            readWaiters(r, state, lock);
            int history = r.count(33);
            for (int h = 0; h < history; h++) {
                lock.addHistory(readTenure(r, version, names), Integer.MAX_VALUE);
            }
            lock.lastEnd = end(r);
            lock.lastToken = r.i64();
            readDelayCheckpointAndStaleWrites(r, state, lock);
            if (version >= VERSION_SEMAPHORES) {
                SnapshotSemaphores.read(r, state, lock);
            }
            state.checkpointBytes += lock.checkpointBytes();
            state.locks.restore(lock);
        }
    }

    private static TenureRecord readTenure(SnapshotReader r, int version, SnapshotNames names) {
        long sessionId = r.i64();
        long token = r.i64();
        long grantedAtMs = r.i64();
        long endedAtMs = r.i64();
        TenureEnd end = end(r);
        long forcedBy = r.i64();
        String forcedByClient = names.read(r);
        if (version == VERSION_OLDEST) {
            return new TenureRecord(sessionId, token, grantedAtMs, endedAtMs, end, forcedBy, forcedByClient);
        }
        return new TenureRecord(
                sessionId, token, grantedAtMs, endedAtMs, end, forcedBy, forcedByClient, names.read(r), names.read(r));
    }

    private static void readLease(SnapshotReader r, State state, LockRecord lock) {
        lock.lease = new LeaseRecord(
                r.i64(),
                r.i64(),
                r.i64(),
                end(r),
                r.i64(),
                readCheckpoint(r),
                readPolicy(r),
                false,
                ElectionValue.NONE);
        lock.renewDeadlineMs = r.i64();
        lock.maxHoldAtMs = r.i64();
        sessionOf(state, lock.lease.sessionId()).addHeld(lock.name);
        if (lock.leaseEndsAtMs() != LockRecord.NONE) {
            state.deadlines.addLeaseEnd(lock.name, lock.leaseEndsAtMs());
        }
    }

    private static void readDelayCheckpointAndStaleWrites(SnapshotReader r, State state, LockRecord lock) {
        lock.delayUntilMs = r.i64();
        if (lock.delayUntilMs != 0) {
            state.deadlines.addDelayEnd(lock.name, lock.delayUntilMs);
            state.delayedLocks++;
        }
        lock.checkpoint = readCheckpoint(r);
        Checkpoint granted = lock.lease == null ? null : lock.lease.previousCheckpoint();
        if (granted != null && granted.equals(lock.checkpoint)) {
            lock.checkpoint = granted; // one object, as before the snapshot: see LockRecord.checkpointBytes
        }
        long count = r.i64();
        long lastToken = r.i64();
        long lastCurrent = r.i64();
        String target = r.nonNullString();
        lock.staleWrites = new StaleWrites(count, lastToken, lastCurrent, target, r.i64());
    }

    private static void readWaiters(SnapshotReader r, State state, LockRecord lock) {
        int waiters = r.count(32);
        for (int i = 0; i < waiters; i++) {
            Waiter x = new Waiter(r.i64(), r.i64(), r.i64(), r.i64(), readPolicy(r));
            SessionRecord s = sessionOf(state, x.sessionId());
            if (s.waitsByLock.containsKey(lock.name) || s.waitsByRequest.containsKey(x.requestId())) {
                throw corrupt("session " + s.id + " waits twice on lock " + lock.name);
            }
            lock.addWaiter(x);
            state.waiters++;
            s.addWait(lock.name, x.requestId());
            if (x.bounded()) {
                state.deadlines.addWait(x.sessionId(), x.requestId(), x.deadlineMs());
            }
        }
    }

    private static void readKv(SnapshotReader r, State state, int version, SnapshotNames names) {
        int count = r.count(version >= VERSION_KV_VERSIONS ? 48 : version >= VERSION_NAMES ? 32 : 28);
        String previous = null;
        for (int i = 0; i < count; i++) {
            String key = r.nonNullString();
            byte[] value = r.bytes();
            long token = r.i64();
            String lock = sharedLockName(state, r.string());
            long writtenAtMs = r.i64();
            String principal = version >= VERSION_NAMES ? names.read(r) : "";
            long keyVersion = 1;
            long ephemeralSessionId = 0;
            if (version >= VERSION_KV_VERSIONS) {
                keyVersion = r.i64();
                ephemeralSessionId = readEphemeralOwner(r, state);
            }
            FencedKv.Entry e =
                    new FencedKv.Entry(key, value, token, lock, writtenAtMs, principal, keyVersion, ephemeralSessionId);
            if (previous != null && e.key().compareTo(previous) <= 0) {
                throw corrupt("keys out of order at " + e.key());
            }
            previous = e.key();
            state.kv.put(e);
        }
    }

    /** Version 8's additions to a KV entry: its version and the session that holds it as ephemeral (0: none). */
    private static void writeKvVersion8(SnapshotWriter w, FencedKv.Entry e) {
        w.i64(e.version());
        w.i64(e.ephemeralSessionId());
    }

    /** The sessions are read before the KV, so an owner that is not among them is corruption. */
    private static long readEphemeralOwner(SnapshotReader r, State state) {
        long id = r.i64();
        if (id != 0 && state.sessions.get(id) == null) {
            throw corrupt("ephemeral key owned by session " + id + ", which the snapshot does not hold");
        }
        return id;
    }

    /** The lock record's own name when the lock is known, so entries fenced by one lock share it. */
    private static @Nullable String sharedLockName(State state, @Nullable String lock) {
        LockRecord known = lock == null ? null : state.locks.get(lock);
        return known == null ? lock : known.name;
    }

    /**
     * A queued acquire's cached outcome names the lock it waits for: it shares the lock record's
     * name, as it did when the acquire queued, instead of a copy read from the snapshot.
     */
    private static void shareWaitingLockNames(State state) {
        for (SessionRecord s : state.sessions.all()) {
            for (long requestId : s.waitsByRequest.keySet()) {
                LockRecord lock = state.locks.get(
                        Objects.requireNonNull(s.waitsByRequest.get(requestId), "a key of waitsByRequest"));
                Outcome cached = s.requests.get(requestId);
                if (lock != null && cached != null && cached.pending()) {
                    s.requests.replacePending(requestId, Outcome.waiting(lock.name));
                }
            }
        }
    }

    static SessionRecord sessionOf(State state, long sessionId) {
        SessionRecord s = state.sessions.get(sessionId);
        if (s == null) {
            throw corrupt("lock refers to unknown session " + sessionId);
        }
        return s;
    }

    static TenureEnd end(SnapshotReader r) {
        return at(ENDS, r.u8());
    }

    static <E> int index(E[] table, E value) {
        for (int i = 0; i < table.length; i++) {
            if (table[i] == value) {
                return i;
            }
        }
        throw new IllegalStateException(value + " has no snapshot encoding: append it to the codec's table");
    }

    static <E> E at(E[] table, int index) {
        if (index >= table.length) {
            throw corrupt("enum index " + index);
        }
        return table[index];
    }

    static IllegalArgumentException corrupt(String what) {
        return new IllegalArgumentException("snapshot corrupt: " + what);
    }
}
