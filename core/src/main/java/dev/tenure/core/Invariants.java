package dev.tenure.core;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The safety properties, checked by code that is always on (Java assert is off by default).
 *
 * <p>After every step the state machine checks the sessions, locks and keys that the step
 * touched, plus the global counts: every change to a lock or session goes through a method that
 * records it, and a fact linking a session to a lock is checked from both sides whenever either
 * side changed, so a step cannot break an invariant in a record it did not touch. Snapshot
 * restore, a new term, and tests ({@code setFullInvariantChecks(true)}) check everything.
 */
final class Invariants {
    private final State state;

    Invariants(State state) {
        this.state = state;
    }

    void checkTouched() {
        for (long id : state.touchedSessions.keySet()) {
            SessionRecord s = state.sessions.get(id);
            if (s != null) {
                checkSession(s);
            } else {
                require(state.kv.ephemeralCount(id) == 0, "ended session %s still holds ephemeral keys", id);
            }
        }
        for (String name : state.touchedLocks) {
            LockRecord lock = state.locks.get(name);
            require(lock != null || !state.locks.isInIdleOrder(name), "dropped lock %s still in idle order", name);
            if (lock != null) {
                checkLock(lock);
                if (!lock.checkpointPrincipal.isEmpty()) {
                    checkCheckpointQuota(lock.checkpointPrincipal);
                }
            }
        }
        for (String key : state.touchedKeys) {
            FencedKv.Entry e = state.kv.get(key);
            if (e != null) {
                checkEntry(e);
                checkQuota(e.principal());
            }
        }
        checkCounts();
        checkTouchedPrincipals();
    }

    void checkAll() {
        long boundedWaits = 0;
        long lockDeadlines = 0;
        long delayed = 0;
        long extraLeases = 0;
        for (LockRecord lock : state.locks.all()) {
            checkLock(lock);
            extraLeases += Math.max(0, lock.leaseCount() - 1);
            boundedWaits += lock.waiters().stream().filter(Waiter::bounded).count();
            lockDeadlines += (lock.lease != null && lock.leaseEndsAtMs() != LockRecord.NONE ? 1 : 0)
                    + (lock.delayUntilMs != 0 ? 1 : 0);
            delayed += lock.delayUntilMs != 0 ? 1 : 0;
        }
        require(delayed == state.delayedLocks, "%s locks in delay, counted %s", delayed, state.delayedLocks);
        require(
                extraLeases == state.extraLeases,
                "%s leases beyond each lock's first, counted %s",
                extraLeases,
                state.extraLeases);
        checkMemoryCounts();
        for (SessionRecord s : state.sessions.all()) {
            checkSession(s);
        }
        checkKvCounts();
        for (String name : state.locks.idleOrder()) {
            LockRecord lock = state.locks.get(name);
            require(lock != null && lock.idle(), "idle order names lock %s that is missing or busy", name);
        }
        require(
                state.deadlines.size() == state.sessions.size() + boundedWaits + lockDeadlines,
                "deadline index has %s entries, expected %s sessions + %s bounded waits + %s lease and delay ends",
                state.deadlines.size(),
                state.sessions.size(),
                boundedWaits,
                lockDeadlines);
        checkCounts();
        checkPrincipals();
    }

    /**
     * Each touched session is indexed under its principal while it lives, and no longer once it
     * ended. Every change to the index opens or ends a session, and both touch it, so this checks
     * every change a step made, at a cost of the sessions it touched: not of every principal,
     * which may be as many as the sessions. {@link #checkAll} checks the whole index.
     */
    private void checkTouchedPrincipals() {
        for (Map.Entry<Long, String> touched : state.touchedSessions.entrySet()) {
            long id = touched.getKey();
            String principal = touched.getValue();
            if (principal.isEmpty()) {
                continue;
            }
            boolean live = state.sessions.get(id) != null;
            require(
                    state.sessions.of(principal).contains(id) == live,
                    live
                            ? "session %s is not indexed under its principal %s"
                            : "ended session %s is still indexed under %s",
                    id,
                    principal);
        }
    }

    /** The principal index names exactly the live sessions with a principal, each under its own. */
    private void checkPrincipals() {
        int indexed = 0;
        for (String principal : state.sessions.principals()) {
            for (long id : state.sessions.of(principal)) {
                SessionRecord s = state.sessions.get(id);
                require(
                        s != null && s.principal.equals(principal),
                        "principal index lists session %s under %s",
                        id,
                        principal);
                indexed++;
            }
        }
        long withPrincipal = state.sessions.all().stream()
                .filter(s -> !s.principal.isEmpty())
                .count();
        require(indexed == withPrincipal, "principal index has %s sessions, expected %s", indexed, withPrincipal);
        require(
                state.sessions.withPrincipal() == withPrincipal,
                "%s sessions with a principal, counted %s",
                withPrincipal,
                state.sessions.withPrincipal());
    }

    private static long electionValueBytes(LockRecord lock) {
        long n = 0;
        for (LeaseRecord l : lock.leases()) {
            n += l.value().size();
        }
        for (Waiter w : lock.waiters()) {
            n += w.value().size();
        }
        return n;
    }

    /** The waiters, checkpoint and election value bytes the limits count are what the locks hold. */
    private void checkMemoryCounts() {
        long waiters = 0;
        long checkpointBytes = 0;
        long electionValueBytes = 0;
        TreeMap<String, Long> charged = new TreeMap<>();
        TreeMap<String, Long> delays = new TreeMap<>();
        for (LockRecord lock : state.locks.all()) {
            waiters += lock.waiterCount();
            checkpointBytes += lock.checkpointBytes();
            electionValueBytes += electionValueBytes(lock);
            if (!lock.checkpointPrincipal.isEmpty() && lock.checkpointBytes() > 0) {
                charged.merge(lock.checkpointPrincipal, lock.checkpointBytes(), Long::sum);
            }
            require(
                    lock.delayUntilMs != 0 || lock.delayPrincipal.isEmpty(),
                    "lock %s charges %s for a delay it is not in",
                    lock.name,
                    lock.delayPrincipal);
            if (!lock.delayPrincipal.isEmpty()) {
                delays.merge(lock.delayPrincipal, 1L, Long::sum);
            }
        }
        require(
                charged.equals(state.checkpointBytesByPrincipal),
                "principals' checkpoint bytes are %s, counted %s",
                charged,
                state.checkpointBytesByPrincipal);
        require(
                delays.equals(state.delaysByPrincipal),
                "principals' lock delays are %s, counted %s",
                delays,
                state.delaysByPrincipal);
        for (var c : charged.entrySet()) {
            checkCheckpointQuota(c.getKey());
        }
        require(waiters == state.waiters, "%s waiters queued, counted %s", waiters, state.waiters);
        require(
                electionValueBytes == state.electionValueBytes,
                "leases and waiters carry %s election value bytes, counted %s",
                electionValueBytes,
                state.electionValueBytes);
        require(
                checkpointBytes == state.checkpointBytes,
                "locks keep %s checkpoint bytes, counted %s",
                checkpointBytes,
                state.checkpointBytes);
    }

    /** Every entry is well formed, and the KV's byte count and each principal's usage are what the entries hold. */
    private void checkKvCounts() {
        long bytes = 0;
        TreeMap<String, FencedKv.Usage> usage = new TreeMap<>();
        for (FencedKv.Entry e : state.kv.all()) {
            checkEntry(e);
            bytes += FencedKv.bytes(e);
            if (!e.principal().isEmpty()) {
                usage.merge(
                        e.principal(), new FencedKv.Usage(1, FencedKv.bytes(e)), (a, b) -> a.plus(b.keys(), b.bytes()));
            }
        }
        require(bytes == state.kv.bytes(), "KV entries hold %s bytes, counted %s", bytes, state.kv.bytes());
        checkEphemeralIndex();
        require(
                usage.keySet().equals(state.kv.principals()),
                "principals holding keys are %s, counted %s",
                usage.keySet(),
                state.kv.principals());
        for (var u : usage.entrySet()) {
            require(
                    u.getValue().equals(state.kv.usage(u.getKey())),
                    "principal %s holds %s, counted %s",
                    u.getKey(),
                    u.getValue(),
                    state.kv.usage(u.getKey()));
            checkQuota(u.getKey());
        }
    }

    /** A principal's checkpoint bytes within its quota. */
    private void checkCheckpointQuota(String principal) {
        long bytes = state.checkpointBytesByPrincipal.getOrDefault(principal, 0L);
        require(
                bytes <= state.quota(principal).checkpointTotalBytesMax(),
                "principal %s keeps %s checkpoint bytes, over checkpointTotalBytesPerPrincipalMax",
                principal,
                bytes);
    }

    /** A principal's keys within its KV quota; writes without a principal have none. */
    private void checkQuota(String principal) {
        if (principal.isEmpty()) {
            return;
        }
        FencedKv.Usage u = state.kv.usage(principal);
        PrincipalLimits quota = state.quota(principal);
        require(
                u.keys() <= quota.kvKeysMax() && u.bytes() <= quota.kvBytesMax(),
                "principal %s holds %s, over its KV quota",
                principal,
                u);
    }

    private void checkCounts() {
        Limits l = state.limits;
        require(state.sessions.size() <= l.sessionsMax(), "%s sessions over sessionsMax", state.sessions.size());
        require(state.kv.size() <= l.kvKeysMax(), "%s keys over kvKeysMax", state.kv.size());
        require(state.kv.bytes() <= l.kvBytesMax(), "%s KV bytes over kvBytesMax", state.kv.bytes());
        require(state.locks.busyCount() <= l.locksMax(), "%s busy locks over locksMax", state.locks.busyCount());
        require(
                state.waiters >= 0 && state.waiters <= l.waitersMax(),
                "%s waiters outside [0, waitersMax]",
                state.waiters);
        require(
                state.checkpointBytes >= 0 && state.checkpointBytes <= l.checkpointTotalBytesMax(),
                "%s checkpoint bytes outside [0, checkpointTotalBytesMax]",
                state.checkpointBytes);
        require(
                state.electionValueBytes >= 0 && state.electionValueBytes <= l.electionValueTotalBytesMax(),
                "%s election value bytes outside [0, electionValueTotalBytesMax]",
                state.electionValueBytes);
        require(
                state.locks.idleCount() <= l.idleLocksMax(),
                "%s idle locks over idleLocksMax",
                state.locks.idleCount());
        require(
                state.deadlines.sessionEntries() == state.sessions.size(),
                "%s session deadlines for %s sessions",
                state.deadlines.sessionEntries(),
                state.sessions.size());
    }

    private void checkLock(LockRecord lock) {
        LeaseRecord lease = lock.lease;
        require(
                lock.idle() == state.locks.isInIdleOrder(lock.name),
                "lock %s idle=%s but idle order disagrees",
                lock.name,
                lock.idle());
        require(
                lock.waiters().isEmpty() || lease != null || lock.delayUntilMs != 0,
                "lock %s has waiters but neither a holder nor a lock delay",
                lock.name);
        checkPolicyState(lock);
        require(lock.waiterCount() <= state.limits.waitersPerLockMax(), "lock %s over waitersPerLockMax", lock.name);
        long previous = 0;
        for (LeaseRecord l : lock.leases()) {
            SessionRecord holder = state.sessions.get(l.sessionId());
            require(
                    holder != null && holder.holds(lock.name),
                    "lock %s held by session %s that is gone or does not list it",
                    lock.name,
                    l.sessionId());
            require(
                    l.token() > previous && l.token() <= state.lastToken,
                    "lock %s token %s not above the lease before it (%s) or above lastToken %s",
                    lock.name,
                    l.token(),
                    previous,
                    state.lastToken);
            previous = l.token();
        }
        checkShape(lock);
        for (Waiter w : lock.waiters()) {
            checkWaiter(lock, w);
        }
        checkHistory(lock);
    }

    /**
     * Never more than permits exclusive leases, never shared with exclusive, a session at most
     * once, only a lone lease with a policy; a lone exclusive lease is above every ended one; the
     * queue's head waits only while it cannot be granted (FIFO, and no waiter left behind).
     */
    private void checkShape(LockRecord lock) {
        List<LeaseRecord> leases = lock.leases();
        long shared = leases.stream().filter(LeaseRecord::shared).count();
        require(
                lock.permits >= 1 && lock.permits <= state.limits.permitsMax(),
                "lock %s permits %s (or over permitsMax)",
                lock.name,
                lock.permits);
        require(
                shared == 0 || (shared == leases.size() && lock.permits == 1),
                "lock %s mixes %s shared leases with %s exclusive under permits %s",
                lock.name,
                shared,
                leases.size() - shared,
                lock.permits);
        require(
                shared > 0 || leases.size() <= lock.permits,
                "lock %s holds %s exclusive leases over permits %s",
                lock.name,
                leases.size(),
                lock.permits);
        require(
                leases.stream().map(LeaseRecord::sessionId).distinct().count() == leases.size(),
                "lock %s holds two leases of one session",
                lock.name);
        require(
                leases.size() <= 1 || leases.stream().allMatch(l -> l.policy().equals(Policy.NONE)),
                "lock %s holds several leases, one with a policy",
                lock.name);
        if (leases.size() == 1 && shared == 0 && lock.permits == 1) {
            require(
                    leases.get(0).token() > lock.lastToken,
                    "lock %s token %s not above its last token %s",
                    lock.name,
                    leases.get(0).token(),
                    lock.lastToken);
        }
        Waiter head = lock.peekWaiter();
        require(
                head == null || lock.delayUntilMs != 0 || !lock.fits(head.shared()),
                "lock %s leaves its first waiter %s queued though it fits",
                lock.name,
                head);
    }

    /**
     * Election values are within electionValueBytesMax (what the memory budget counts on) and only
     * on an exclusive lease or waiter of a plain lock: an election has one leader.
     */
    private void checkElectionValues(LockRecord lock) {
        int max = state.limits.electionValueBytesMax();
        for (LeaseRecord l : lock.leases()) {
            require(
                    l.value().isEmpty() || (l.value().size() <= max && !l.shared() && lock.permits == 1),
                    "lock %s lease %s carries %s (electionValueBytesMax %s, permits %s, shared %s)",
                    lock.name,
                    l.token(),
                    l.value(),
                    max,
                    lock.permits,
                    l.shared());
        }
        for (Waiter w : lock.waiters()) {
            require(
                    w.value().isEmpty() || (w.value().size() <= max && !w.shared()),
                    "lock %s waiter %s carries %s (electionValueBytesMax %s, shared %s)",
                    lock.name,
                    w,
                    w.value(),
                    max,
                    w.shared());
        }
    }

    /**
     * The lease's own deadlines exist exactly when its policy asks for them and are indexed; a lock
     * delay only on a free lock, indexed; a checkpoint and stale-write counts within their bounds.
     */
    private void checkPolicyState(LockRecord lock) {
        LeaseRecord lease = lock.lease;
        if (lease == null) {
            require(
                    lock.renewDeadlineMs == LockRecord.NONE && lock.maxHoldAtMs == LockRecord.NONE,
                    "free lock %s keeps lease deadlines",
                    lock.name);
        } else {
            require(
                    Shapes.policy(lease.policy(), state.limits) == null,
                    "lock %s lease policy %s out of limits",
                    lock.name,
                    lease.policy());
            require(
                    (lock.renewDeadlineMs != LockRecord.NONE) == lease.policy().manualRenew(),
                    "lock %s manual deadline %s disagrees with policy %s",
                    lock.name,
                    lock.renewDeadlineMs,
                    lease.policy());
            require(
                    (lock.maxHoldAtMs != LockRecord.NONE) == (lease.policy().maxHoldMs() > 0),
                    "lock %s maxHold deadline %s disagrees with policy %s",
                    lock.name,
                    lock.maxHoldAtMs,
                    lease.policy());
            require(
                    lock.leaseEndsAtMs() == LockRecord.NONE
                            || state.deadlines.containsLeaseEnd(lock.name, lock.leaseEndsAtMs()),
                    "lock %s lease end %s not indexed",
                    lock.name,
                    lock.leaseEndsAtMs());
            require(lock.delayUntilMs == 0, "held lock %s has a lock delay pending", lock.name);
        }
        require(
                lock.delayUntilMs == 0 || state.deadlines.containsDelayEnd(lock.name, lock.delayUntilMs),
                "lock %s delay end %s not indexed",
                lock.name,
                lock.delayUntilMs);
        Checkpoint c = lock.checkpoint;
        require(
                c == null
                        || (c.token() > 0
                                && c.token() <= state.lastToken
                                && c.size() <= state.limits.checkpointBytesMax()),
                "lock %s checkpoint %s out of bounds",
                lock.name,
                c);
        checkElectionValues(lock);
        require(
                lock.staleWrites.count() >= 0 && lock.staleWrites.count() <= state.staleWritesRejected,
                "lock %s counts %s stale writes of %s in all",
                lock.name,
                lock.staleWrites.count(),
                state.staleWritesRejected);
    }

    private void checkWaiter(LockRecord lock, Waiter w) {
        SessionRecord s = state.sessions.get(w.sessionId());
        require(s != null, "lock %s has a waiter from ended session %s", lock.name, w.sessionId());
        Objects.requireNonNull(s, "require fails on a null session");
        require(lock.leaseOf(w.sessionId()) == null, "lock %s holder %s also waits", lock.name, w.sessionId());
        require(
                Shapes.policy(w.policy(), state.limits) == null,
                "wait %s/%s policy out of limits",
                s.id,
                w.requestId());
        Long rid = s.waitsByLock.get(lock.name);
        require(
                rid != null && rid == w.requestId() && lock.name.equals(s.waitsByRequest.get(rid)),
                "session %s does not list its wait %s on lock %s",
                s.id,
                w.requestId(),
                lock.name);
        Outcome o = s.requests.get(w.requestId());
        require(
                o != null && lock.name.equals(o.waitingLock()),
                "wait %s/%s has no pending cache entry",
                s.id,
                w.requestId());
        require(
                !w.bounded() || state.deadlines.containsWait(s.id, w.requestId(), w.deadlineMs()),
                "wait %s/%s deadline not indexed",
                s.id,
                w.requestId());
    }

    private void checkHistory(LockRecord lock) {
        require(lock.historySize() <= state.limits.historyPerLockMax(), "lock %s over historyPerLockMax", lock.name);
        require(
                (lock.lastEnd == TenureEnd.NONE) == (lock.lastToken == 0),
                "lock %s last end/token disagree",
                lock.name);
        require(lock.lastToken <= state.lastToken, "lock %s last token above lastToken", lock.name);
        // In end order: a semaphore's or shared leases end in any order, so tokens are distinct
        // there, not increasing (a plain lock's are both, as its lease above its last token shows).
        java.util.Set<Long> tokens = new java.util.TreeSet<>();
        for (TenureRecord r : lock.history()) {
            require(
                    r.token() > 0 && r.token() <= state.lastToken && tokens.add(r.token()),
                    "lock %s history token %s repeated or out of range",
                    lock.name,
                    r.token());
            require(
                    r.end() != TenureEnd.NONE && r.endedAtMs() >= r.grantedAtMs(),
                    "lock %s bad history record %s",
                    lock.name,
                    r);
            require(
                    r.forcedByClient() != null && (!r.forced() || r.end() == TenureEnd.REVOKED),
                    "lock %s bad forcer in history record %s",
                    lock.name,
                    r);
        }
        require(
                lock.lastTenure() == null || lock.lastTenure().token() == lock.lastToken,
                "lock %s newest history record is not its last tenure",
                lock.name);
    }

    private void checkSession(SessionRecord s) {
        Limits l = state.limits;
        require(s.id > 0 && s.id <= state.sessions.lastSessionId(), "session id %s above lastSessionId", s.id);
        require(s.ttlMs >= l.sessionTtlMsMin() && s.ttlMs <= l.sessionTtlMsMax(), "session %s TTL out of range", s.id);
        require(state.deadlines.containsSession(s.id, s.deadlineMs), "session %s deadline not indexed", s.id);
        require(s.attachment >= 1, "session %s attachment %s below 1", s.id, s.attachment);
        require(
                !state.barredPrincipals.contains(s.principal),
                "session %s of revoked principal %s is live",
                s.id,
                s.principal);
        for (var e : entries(s.requests.attempts())) {
            require(
                    e.getValue() >= 1 && s.requests.get(e.getKey()) != null,
                    "session %s keeps try %s of request %s without its outcome",
                    s.id,
                    e.getValue(),
                    e.getKey());
        }
        // Every step fires what is due and sets session deadlines after now (a new term too), so a
        // live session past its deadline would mean an expiry was skipped. Wait deadlines may be
        // overdue after a new term, which fires nothing; the next step fires them.
        require(s.deadlineMs > state.nowMs, "session %s deadline %s overdue at %s", s.id, s.deadlineMs, state.nowMs);
        require(s.leaseCount() <= l.leasesPerSessionMax(), "session %s over leasesPerSessionMax", s.id);
        for (String name : s.heldLocks()) {
            LockRecord lock = state.locks.get(name);
            require(
                    lock != null && lock.leaseOf(s.id) != null,
                    "session %s lists lock %s it does not hold",
                    s.id,
                    name);
        }
        require(s.waitsByLock.size() == s.waitsByRequest.size(), "session %s wait indexes differ", s.id);
        for (Map.Entry<String, Long> wait : entries(s.waitsByLock)) {
            LockRecord lock = state.locks.get(wait.getKey());
            require(
                    lock != null && lock.findWaiter(s.id, wait.getValue()) != null,
                    "session %s lists wait %s on lock %s that is not queued",
                    s.id,
                    wait.getValue(),
                    wait.getKey());
        }
        checkRequestCache(s);
    }

    private void checkRequestCache(SessionRecord s) {
        int pending = 0;
        for (Map.Entry<Long, Outcome> e : entries(s.requests.entries())) {
            if (e.getValue().pending()) {
                pending++;
                require(
                        Objects.equals(e.getValue().waitingLock(), s.waitsByRequest.get(e.getKey())),
                        "session %s caches request %s as waiting but it is not queued",
                        s.id,
                        e.getKey());
            }
        }
        require(
                pending == s.waitsByRequest.size(),
                "session %s has %s pending cache entries for %s waits",
                s.id,
                pending,
                s.waitsByRequest.size());
        require(
                s.requests.size() <= state.limits.requestIdCacheMax() || pending == s.requests.size(),
                "session %s request cache over requestIdCacheMax",
                s.id);
    }

    /** The per-session index of ephemeral keys is what the entries say, and within its limit. */
    private void checkEphemeralIndex() {
        TreeMap<Long, Integer> owned = new TreeMap<>();
        for (FencedKv.Entry e : state.kv.all()) {
            if (e.ephemeral()) {
                owned.merge(e.ephemeralSessionId(), 1, Integer::sum);
            }
        }
        require(
                owned.keySet().equals(state.kv.ephemeralSessions()),
                "sessions holding ephemeral keys are %s, indexed %s",
                owned.keySet(),
                state.kv.ephemeralSessions());
        for (var o : owned.entrySet()) {
            require(
                    o.getValue() == state.kv.ephemeralCount(o.getKey())
                            && o.getValue() <= state.limits.ephemeralKeysPerSessionMax(),
                    "session %s holds %s ephemeral keys, indexed %s (or over ephemeralKeysPerSessionMax)",
                    o.getKey(),
                    o.getValue(),
                    state.kv.ephemeralCount(o.getKey()));
        }
    }

    private void checkEntry(FencedKv.Entry e) {
        require(e.token() >= 0 && e.token() <= state.lastToken, "key %s token %s above lastToken", e.key(), e.token());
        require((e.lock() == null) == (e.token() == 0), "key %s fence lock and token disagree", e.key());
        require(e.principal() != null, "key %s has a null principal", e.key());
        require(e.version() >= 1, "key %s has version %s, below 1", e.key(), e.version());
        require(
                !e.ephemeral() || state.sessions.get(e.ephemeralSessionId()) != null,
                "ephemeral key %s outlives its session %s",
                e.key(),
                e.ephemeralSessionId());
    }

    // The checks run for every touched session and lock after every step, and pass: the
    // overloads keep their arguments unboxed and the varargs array unmade on that path (a batch
    // of 10,000 keepalives checks 10,000 sessions).

    private static void require(boolean ok, String format, long a) {
        if (!ok) {
            fail(format, a);
        }
    }

    private static void require(boolean ok, String format, long a, long b) {
        if (!ok) {
            fail(format, a, b);
        }
    }

    private static void require(boolean ok, String format, long a, long b, long c) {
        if (!ok) {
            fail(format, a, b, c);
        }
    }

    private static void require(boolean ok, String format, Object a) {
        if (!ok) {
            fail(format, a);
        }
    }

    private static void require(boolean ok, String format, long a, Object b) {
        if (!ok) {
            fail(format, a, b);
        }
    }

    private static void require(boolean ok, String format, Object a, long b) {
        if (!ok) {
            fail(format, a, b);
        }
    }

    private static void require(boolean ok, String format, Object a, @Nullable Object b) {
        if (!ok) {
            fail(format, a, b);
        }
    }

    private static void require(boolean ok, String format, @Nullable Object... args) {
        if (!ok) {
            fail(format, args);
        }
    }

    /** A map's entries; no view made for an empty map (most sessions have no waits or retries). */
    private static <K, V> Iterable<Map.Entry<K, V>> entries(Map<K, V> map) {
        return map.isEmpty() ? List.of() : map.entrySet();
    }

    // @FormatMethod lives in ErrorProne's annotations jar, which core's dependency rules keep out
    // of its build; every format passed here is a constant in this file.
    @SuppressWarnings("AnnotateFormatMethod")
    private static void fail(String format, @Nullable Object... args) {
        throw new InvariantViolation(String.format(format, args));
    }
}
