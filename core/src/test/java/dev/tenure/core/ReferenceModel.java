package dev.tenure.core;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CancelWait;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.Stats;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Holder;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.LockView;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.WaiterView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * An independent, deliberately naive model of the contract: plain lists and linear scans, no
 * indexes, nothing shared with the main code. Held locks and waits are never stored per session;
 * they are found by scanning the locks, so the model cannot share an indexing bug with the machine.
 * Rejection messages are not modelled (the comparison uses code and token only).
 *
 * <p>A lock holds a list of leases: any number of shared ones, or up to its permits exclusive
 * ones, never both; its queue is strictly FIFO (a new acquire goes in beside the current leases
 * only when nobody waits, and only the head is ever admitted). Tokens come from one counter, so
 * an exclusive lease admitted after shared ones has a token above all of theirs by construction.
 */
final class ReferenceModel {
    static final long NEVER = Long.MAX_VALUE;

    static final class S {
        long id, ttl, deadline, maxEvicted;
        long attachment = 1;
        String name;
        final List<C> cache = new ArrayList<>();
    }

    /** A cached outcome: result, or the lock of a still-pending wait. */
    static final class C {
        long rid;
        Result result;
        String waitingOn;
        long attempt;
    }

    private static void attempted(S s, long rid, long attempt) {
        for (C x : s.cache) if (x.rid == rid && attempt > x.attempt) x.attempt = attempt;
    }

    /** What a resolved wait names as its request's latest try: the first (1) counts as none. */
    private static long resolvedAttempt(S s, long rid) {
        long a = latestAttempt(s, rid);
        return a > 1 ? a : 0;
    }

    private static long latestAttempt(S s, long rid) {
        for (C x : s.cache) if (x.rid == rid) return x.attempt;
        return 0;
    }

    static final class W {
        long sid, rid, since, deadline;
        Policy policy;
        boolean shared;
    }

    /** One current lease: the grant as first reported, and whether it is held shared now. */
    record H(Grant grant, boolean shared) {
        long token() {
            return grant.token();
        }

        long sid() {
            return grant.sessionId();
        }
    }

    static final class L {
        String name;
        /** The current leases in grant (token) order; empty when free. */
        final List<H> leases = new ArrayList<>();
        /** How many exclusive leases at once, as named by the acquire that last took the lock while free. */
        int permits = 1;
        /** The last lease that ended was shared: an exclusive grant after it is a writer after readers. */
        boolean lastShared;

        final List<W> queue = new ArrayList<>();
        final List<TenureRecord> hist = new ArrayList<>();
        TenureEnd lastEnd = TenureEnd.NONE;
        long lastTok;
        long renewAt = NEVER, holdAt = NEVER, delayUntil;
        Checkpoint ckpt;
        StaleWrites stale = StaleWrites.NONE;

        long endsAt() {
            return Math.min(renewAt, holdAt);
        }

        /** The oldest current lease, or null when free: the only one with deadlines of its own. */
        Grant first() {
            return leases.isEmpty() ? null : leases.get(0).grant();
        }

        H leaseOf(long sid) {
            for (H h : leases) if (h.sid() == sid) return h;
            return null;
        }

        H withToken(long token) {
            for (H h : leases) if (h.token() == token) return h;
            return null;
        }

        /** Any number of shared leases, or up to permits exclusive ones: never both. */
        boolean fits(boolean shared) {
            if (leases.isEmpty()) return true;
            return shared ? leases.get(0).shared() : !leases.get(0).shared() && leases.size() < permits;
        }

        boolean idle() {
            return leases.isEmpty() && queue.isEmpty() && delayUntil == 0;
        }
    }

    static final class K {
        String key, lock;
        byte[] value;
        long token, at, version, eph;
    }

    final Limits lim;
    long now, lastToken, lastSid, staleTotal;
    final List<S> sessions = new ArrayList<>();
    final List<L> locks = new ArrayList<>();
    final List<String> idle = new ArrayList<>();
    final List<K> kv = new ArrayList<>();
    final List<Event> events = new ArrayList<>();
    /** Semaphore and shared-lease situations the run reached: proof that the generator reaches them. */
    final java.util.TreeMap<String, Integer> reached = new java.util.TreeMap<>();

    ReferenceModel(Limits lim) {
        this.lim = lim;
    }

    // ---- lookups -------------------------------------------------------------------------

    S session(long id) {
        for (S s : sessions) if (s.id == id) return s;
        return null;
    }

    L lock(String name) {
        for (L l : locks) if (l.name.equals(name)) return l;
        return null;
    }

    K entry(String key) {
        for (K k : kv) if (k.key.equals(key)) return k;
        return null;
    }

    List<L> locksByName() {
        List<L> sorted = new ArrayList<>(locks);
        sorted.sort(Comparator.comparing(l -> l.name));
        return sorted;
    }

    long tokenOf(String lock) {
        L l = lock(lock);
        return l == null || l.leases.isEmpty() ? 0 : l.first().token();
    }

    /** A fenced write's check: the token is one of the lock's current leases. */
    boolean holds(String lock, long token) {
        L l = lock(lock);
        return token != 0 && l != null && l.withToken(token) != null;
    }

    private void reach(String what) {
        reached.merge(what, 1, Integer::sum);
    }

    int leasesOf(long sid) {
        int n = 0;
        for (L l : locks) {
            if (l.leaseOf(sid) != null) n++;
            for (W w : l.queue) if (w.sid == sid) n++;
        }
        return n;
    }

    long nextDeadline() {
        long min = NEVER;
        for (S s : sessions) min = Math.min(min, s.deadline);
        for (L l : locks) for (W w : l.queue) min = Math.min(min, w.deadline);
        for (L l : locks) {
            if (!l.leases.isEmpty()) min = Math.min(min, l.endsAt());
            if (l.delayUntil != 0) min = Math.min(min, l.delayUntil);
        }
        return min;
    }

    // ---- time ----------------------------------------------------------------------------

    void advance(long ts) {
        now = Math.max(now, ts);
        while (true) {
            // candidates ordered by (deadline, kind, sid, rid, lock)
            Cand best = null;
            for (S s : sessions) best = better(best, new Cand(s.deadline, 0, s.id, 0, ""));
            for (L l : locks) {
                if (!l.leases.isEmpty() && l.endsAt() != NEVER)
                    best = better(best, new Cand(l.endsAt(), 1, 0, 0, l.name));
                for (W w : l.queue)
                    if (w.deadline != NEVER) best = better(best, new Cand(w.deadline, 2, w.sid, w.rid, ""));
                if (l.delayUntil != 0) best = better(best, new Cand(l.delayUntil, 3, 0, 0, l.name));
            }
            if (best == null || best.at > now) return;
            switch (best.kind) {
                case 0 -> endSession(session(best.sid), TenureEnd.EXPIRED);
                case 1 -> {
                    L l = lock(best.lock);
                    TenureEnd end = l.holdAt <= now ? TenureEnd.REVOKED : TenureEnd.EXPIRED;
                    long sid = l.first().sessionId(), token = l.first().token();
                    endLease(l, l.leases.get(0), end);
                    events.add(new Event.LeaseEnded(sid, l.name, token, end));
                    handOff(l);
                }
                case 2 -> timeout(best.sid, best.rid);
                default -> {
                    L l = lock(best.lock);
                    l.delayUntil = 0;
                    handOff(l);
                }
            }
        }
    }

    record Cand(long at, int kind, long sid, long rid, String lock) {}

    private static Cand better(Cand a, Cand b) {
        if (a == null) return b;
        if (a.at != b.at) return a.at < b.at ? a : b;
        if (a.kind != b.kind) return a.kind < b.kind ? a : b;
        if (a.sid != b.sid) return a.sid < b.sid ? a : b;
        if (a.rid != b.rid) return a.rid < b.rid ? a : b;
        return a.lock.compareTo(b.lock) <= 0 ? a : b;
    }

    private void timeout(long sid, long rid) {
        for (L l : locks) {
            for (W w : new ArrayList<>(l.queue)) {
                if (w.sid == sid && w.rid == rid) resolveWait(l, w, new Rejected(Code.HELD, "", tokenOf(l.name)));
            }
        }
    }

    void newTerm(long ts) {
        for (S s : sessions) s.deadline = Math.max(s.deadline, ts + s.ttl);
        long jump = Math.max(0, ts - now);
        for (L l : locks) {
            if (l.leases.isEmpty()) continue;
            if (l.renewAt != NEVER)
                l.renewAt = Math.max(l.renewAt, ts + l.first().policy().leaseTtlMs());
            if (l.holdAt != NEVER) l.holdAt = l.holdAt + jump;
        }
        now = Math.max(now, ts);
    }

    // ---- shared transitions ----------------------------------------------------------------

    void endSession(S s, TenureEnd end) {
        for (L l : locksByName()) {
            H h = l.leaseOf(s.id);
            if (h != null) {
                endLease(l, h, end);
                events.add(new Event.LeaseEnded(s.id, l.name, h.token(), end));
                handOff(l);
            }
        }
        for (L l : locksByName()) {
            for (W w : new ArrayList<>(l.queue)) {
                if (w.sid == s.id) resolveWait(l, w, new Rejected(Code.SESSION_LOST, "", 0));
            }
        }
        kv.removeIf(k -> k.eph == s.id);
        events.add(new Event.SessionEnded(s.id, end));
        sessions.remove(s);
    }

    void endLease(L l, H h, TenureEnd end) {
        endLease(l, h, end, null);
    }

    void endLease(L l, H h, TenureEnd end, S forcer) {
        Grant lease = h.grant();
        l.hist.add(new TenureRecord(
                lease.sessionId(),
                lease.token(),
                lease.grantedAtMs(),
                now,
                end,
                forcer == null ? 0 : forcer.id,
                forcer == null ? "" : forcer.name));
        while (l.hist.size() > lim.historyPerLockMax()) l.hist.remove(0);
        l.lastEnd = end;
        l.lastTok = lease.token();
        l.lastShared = h.shared();
        if (end != TenureEnd.RELEASED && lease.policy().lockDelayMs() > 0) {
            l.delayUntil = now + lease.policy().lockDelayMs();
        }
        l.leases.remove(h);
        l.renewAt = NEVER;
        l.holdAt = NEVER;
    }

    void stale(String lock, long token, String target) {
        staleTotal++;
        L l = lock(lock);
        if (l != null) {
            l.stale = new StaleWrites(l.stale.count() + 1, token, tokenOf(lock), target, now);
        }
    }

    void handOff(L l) {
        if (l.delayUntil != 0) return;
        admitHead(l);
        if (l.leases.isEmpty() && l.queue.isEmpty()) {
            idle.add(l.name);
            if (idle.size() > lim.idleLocksMax()) {
                String gone = idle.remove(0);
                locks.remove(lock(gone));
            }
        }
    }

    /** FIFO: the head goes in while it fits, then the next; nobody behind a head that does not fit. */
    private void admitHead(L l) {
        while (!l.queue.isEmpty() && l.fits(l.queue.get(0).shared)) {
            W w = l.queue.remove(0);
            S s = session(w.sid);
            if (!l.leases.isEmpty()) reach(w.shared ? "shared.admittedBeside" : "semaphore.admittedBeside");
            if (!w.shared && l.leases.isEmpty() && l.lastShared) reach("exclusive.admittedAfterShared");
            Granted g = new Granted(grant(l, s, w.policy, w.shared));
            remember(s, w.rid, g, null);
            events.add(new Event.WaitResolved(w.sid, w.rid, g, resolvedAttempt(s, w.rid)));
        }
    }

    /** A waiter leaves unserved; a head that held back the ones behind it lets them in. */
    private void resolveWait(L l, W w, Rejected r) {
        if (!l.leases.isEmpty() && l.queue.indexOf(w) == 0 && l.queue.size() > 1 && !w.shared)
            reach("exclusive.headLeft");
        l.queue.remove(w);
        remember(session(w.sid), w.rid, r, null);
        events.add(new Event.WaitResolved(w.sid, w.rid, r, resolvedAttempt(session(w.sid), w.rid)));
        if (!l.leases.isEmpty() && l.delayUntil == 0) admitHead(l);
    }

    Grant grant(L l, S s, Policy p, boolean shared) {
        lastToken++;
        Grant g = new Grant(l.name, lastToken, s.id, now, s.ttl, l.lastEnd, l.lastTok, l.ckpt, p);
        if (l.leases.isEmpty()) {
            l.renewAt = p.leaseTtlMs() > 0 ? now + p.leaseTtlMs() : NEVER;
            l.holdAt = p.maxHoldMs() > 0 ? now + p.maxHoldMs() : NEVER;
        }
        l.leases.add(new H(g, shared));
        idle.remove(l.name);
        return g;
    }

    void remember(S s, long rid, Result r, String waitingOn) {
        C c = null;
        for (C x : s.cache) if (x.rid == rid) c = x;
        if (c == null) {
            c = new C();
            c.rid = rid;
            s.cache.add(c);
        }
        c.result = r;
        c.waitingOn = waitingOn;
        while (s.cache.size() > lim.requestIdCacheMax()) {
            C victim = null;
            for (C x : s.cache) if (x.waitingOn == null && (victim == null || x.rid < victim.rid)) victim = x;
            if (victim == null) break;
            s.cache.remove(victim);
            s.maxEvicted = Math.max(s.maxEvicted, victim.rid);
        }
    }

    /** Cached reply, too-old, or null. */
    Result lookup(S s, long rid) {
        for (C c : s.cache) {
            if (c.rid == rid) {
                if (c.waitingOn != null) return new Queued(c.waitingOn, tokenOf(c.waitingOn));
                if (c.result instanceof Granted g
                        && !holds(g.grant().lock(), g.grant().token())) {
                    return new Rejected(Code.CANCELLED, "", 0);
                }
                return c.result;
            }
        }
        return rid <= s.maxEvicted ? new Rejected(Code.REQUEST_TOO_OLD, "", 0) : null;
    }

    // ---- commands --------------------------------------------------------------------------

    Result apply(long ts, Command cmd) {
        advance(ts);
        if (cmd instanceof OpenSession c) return open(c);
        if (cmd instanceof KeepAlive c) return keepAlive(c);
        if (cmd instanceof CloseSession c) return close(c);
        if (cmd instanceof Command.ResumeSession c) return resume(c);
        if (cmd instanceof Acquire c) return acquire(c);
        if (cmd instanceof CancelWait c) return cancel(c);
        if (cmd instanceof Release c) return release(c);
        if (cmd instanceof Put c) return put(c);
        if (cmd instanceof Delete c) return delete(c);
        if (cmd instanceof Get c) return get(c);
        if (cmd instanceof Status c) return status(c);
        if (cmd instanceof Stats) return stats();
        if (cmd instanceof Command.RenewLease c) return renew(c);
        if (cmd instanceof Command.WriteCheckpoint c) return checkpoint(c);
        if (cmd instanceof Command.Downgrade c) return downgrade(c);
        throw new IllegalArgumentException();
    }

    private static Rejected invalid() {
        return new Rejected(Code.INVALID, "", 0);
    }

    private static Rejected lost() {
        return new Rejected(Code.SESSION_LOST, "", 0);
    }

    private static boolean nameOk(String s, int max) {
        return s != null && !s.isEmpty() && s.getBytes(StandardCharsets.UTF_8).length <= max;
    }

    Result open(OpenSession c) {
        if (c.ttlMs() < lim.sessionTtlMsMin()
                || c.ttlMs() > lim.sessionTtlMsMax()
                || c.clientName() == null
                || c.clientName().getBytes(StandardCharsets.UTF_8).length > lim.clientNameBytesMax()) return invalid();
        if (sessions.size() >= lim.sessionsMax()) return new Rejected(Code.LIMIT, "", 0);
        S s = new S();
        s.id = ++lastSid;
        s.ttl = c.ttlMs();
        s.name = c.clientName();
        s.deadline = now + c.ttlMs();
        sessions.add(s);
        return new Result.SessionOpened(s.id, s.ttl);
    }

    Result keepAlive(KeepAlive c) {
        List<Long> lostIds = new ArrayList<>();
        for (long id : c.sessionIds()) {
            S s = session(id);
            if (s != null) s.deadline = Math.max(s.deadline, now + s.ttl);
            else if (!lostIds.contains(id)) lostIds.add(id);
        }
        return new Result.KeepAliveResult(lostIds);
    }

    Result close(CloseSession c) {
        if (c.end() == null || c.end() == TenureEnd.NONE) return invalid();
        if (c.attachment() < 0) return invalid();
        S s = session(c.sessionId());
        if (s == null) return lost();
        if (c.attachment() != 0 && c.attachment() != s.attachment) return new Rejected(Code.NOT_OWNER, "", 0);
        endSession(s, c.end());
        return new Ok();
    }

    Result resume(Command.ResumeSession c) {
        S s = session(c.sessionId());
        if (s == null) return lost();
        s.attachment++;
        s.deadline = Math.max(s.deadline, now + s.ttl);
        return new Result.SessionResumed(s.id, s.ttl, s.attachment);
    }

    Result acquire(Acquire c) {
        if (!nameOk(c.lock(), lim.lockNameBytesMax()) || c.requestId() <= 0 || !policyOk(c.policy()) || c.attempt() < 0)
            return invalid();
        if (c.permits() < 1 || c.permits() > lim.permitsMax() || (c.shared() && c.permits() != 1)) return invalid();
        if ((c.shared() || c.permits() > 1) && !c.policy().equals(Policy.NONE)) return invalid();
        S s = session(c.sessionId());
        if (s == null) return lost();
        Result r = decideAcquire(s, c);
        attempted(s, c.requestId(), c.attempt());
        return r;
    }

    private Result decideAcquire(S s, Acquire c) {
        Result cached = lookup(s, c.requestId());
        if (cached != null) return cached;
        L l = lock(c.lock());
        boolean delayed = l != null && l.delayUntil != 0;
        H own = l == null ? null : l.leaseOf(s.id);
        if (l != null && own == null && !delayed && l.permits == c.permits() && !l.leases.isEmpty()) {
            if (c.shared() && l.fits(true) && !l.queue.isEmpty()) reach("shared.heldBackByWaiter");
            if (!c.shared() && l.permits > 1 && l.leases.size() >= l.permits) reach("semaphore.full");
        }
        Result r;
        if (l != null && !l.idle() && l.permits != c.permits()) {
            reach("Rejected.INVALID.permitsMismatch");
            r = invalid();
        } else if (own != null) {
            r = reentrant(own, c);
        } else if (l != null && l.queue.stream().anyMatch(w -> w.sid == s.id)) {
            r = invalid();
        } else if (l == null || (!delayed && l.queue.isEmpty() && l.fits(c.shared()))) {
            if (leasesOf(s.id) >= lim.leasesPerSessionMax()) {
                r = new Rejected(Code.LIMIT, "", 0);
            } else {
                if (l == null) {
                    l = new L();
                    l.name = c.lock();
                    locks.add(l);
                }
                if (l.leases.isEmpty()) l.permits = c.permits();
                else reach(c.shared() ? "shared.grantedBeside" : "semaphore.grantedBeside");
                r = new Granted(grant(l, s, c.policy(), c.shared()));
            }
        } else if (c.waitMs() == 0) {
            r = new Rejected(Code.HELD, "", tokenOf(l.name));
        } else if (l.queue.size() >= lim.waitersPerLockMax() || leasesOf(s.id) >= lim.leasesPerSessionMax()) {
            r = new Rejected(Code.LIMIT, "", 0);
        } else {
            W w = new W();
            w.sid = s.id;
            w.rid = c.requestId();
            w.since = now;
            w.deadline = c.waitMs() > 0 ? now + c.waitMs() : NEVER;
            w.policy = c.policy();
            w.shared = c.shared();
            l.queue.add(w);
            remember(s, c.requestId(), null, l.name);
            return new Queued(l.name, tokenOf(l.name));
        }
        remember(s, c.requestId(), r, null);
        return r;
    }

    /** The session holds a lease of the lock already: the same grant, never a second token. */
    private Result reentrant(H own, Acquire c) {
        if (own.grant().policy().bounded()) return new Rejected(Code.HELD, "", own.token());
        if (own.shared() && !c.shared()) {
            reach("Rejected.INVALID.upgrade");
            return invalid();
        }
        if (!own.shared() && c.shared()) return invalid();
        return new Granted(own.grant());
    }

    Result cancel(CancelWait c) {
        if (c.attempt() < 0) return invalid();
        S s = session(c.sessionId());
        if (s == null) return lost();
        if (c.attempt() > 0 && latestAttempt(s, c.requestId()) > c.attempt())
            return new Rejected(Code.NOT_OWNER, "", 0);
        for (L l : locks) {
            for (W w : l.queue) {
                if (w.sid == s.id && w.rid == c.requestId()) {
                    resolveWait(l, w, new Rejected(Code.CANCELLED, "", 0));
                    return new Ok();
                }
            }
        }
        for (C x : s.cache) {
            if (x.rid == c.requestId() && x.result instanceof Granted g) {
                L l = lock(g.grant().lock());
                H h = l == null ? null : l.withToken(g.grant().token());
                if (h != null) {
                    if (grantedAfter(s, c.requestId(), g.grant().token())) return new Ok();
                    endLease(l, h, TenureEnd.RELEASED);
                    handOff(l);
                    return new Ok();
                }
            }
        }
        return new Rejected(Code.NOT_FOUND, "", 0);
    }

    /** A request of {@code s} newer than {@code rid} was granted {@code token} (re-entrantly). */
    private static boolean grantedAfter(S s, long rid, long token) {
        for (C x : s.cache) {
            if (x.rid > rid && x.result instanceof Granted g && g.grant().token() == token) return true;
        }
        return false;
    }

    Result release(Release c) {
        if (!nameOk(c.lock(), lim.lockNameBytesMax()) || c.requestId() <= 0) return invalid();
        S s = session(c.sessionId());
        if (s == null) return lost();
        Result cached = lookup(s, c.requestId());
        if (cached != null) return cached;
        Result r = doRelease(s, c);
        remember(s, c.requestId(), r, null);
        return r;
    }

    private Result doRelease(S caller, Release c) {
        L l = lock(c.lock());
        H h = l == null || c.token() == 0 ? null : l.withToken(c.token());
        if (h == null) {
            stale(c.lock(), c.token(), "release");
            return new Rejected(Code.NOT_OWNER, "", tokenOf(c.lock()));
        }
        long holder = h.sid();
        if (c.force()) {
            endLease(l, h, TenureEnd.REVOKED, caller);
            if (holder != caller.id) events.add(new Event.LeaseEnded(holder, l.name, h.token(), TenureEnd.REVOKED));
            handOff(l);
            return new Ok();
        }
        if (holder != caller.id) return new Rejected(Code.NOT_OWNER, "", h.token());
        if (grantedAfter(caller, c.requestId(), c.token())) {
            return new Ok(); // sent before the session was given this same lease again
        }
        endLease(l, h, TenureEnd.RELEASED);
        handOff(l);
        return new Ok();
    }

    Result put(Put c) {
        if (!nameOk(c.key(), lim.keyBytesMax())
                || c.value() == null
                || c.value().length > lim.valueBytesMax()
                || (c.fenceLock() != null && !nameOk(c.fenceLock(), lim.lockNameBytesMax()))) return invalid();
        return deduped(c.sessionId(), c.requestId(), () -> {
            if (c.fenceLock() != null && !holds(c.fenceLock(), c.fenceToken())) {
                stale(c.fenceLock(), c.fenceToken(), "kv:" + c.key());
                return new Rejected(Code.STALE_TOKEN, "", tokenOf(c.fenceLock()));
            }
            K k = entry(c.key());
            if (c.fenceLock() == null && !c.overrideFence() && k != null && k.lock != null)
                return new Rejected(Code.KEY_FENCED, "", 0);
            long current = k == null ? 0 : k.version;
            if (c.ifVersion() != Command.ANY_VERSION && c.ifVersion() != current)
                return new Rejected(Code.VERSION_MISMATCH, "", current);
            if (c.ephemeral() && c.sessionId() == 0) return invalid();
            if (k != null && k.eph != 0 && k.eph != c.sessionId()) return new Rejected(Code.EPHEMERAL_CONFLICT, "", 0);
            if (k == null && kv.size() >= lim.kvKeysMax()) return new Rejected(Code.LIMIT, "", 0);
            if (c.ephemeral() && (k == null || k.eph != c.sessionId())) {
                long held = kv.stream().filter(x -> x.eph == c.sessionId()).count();
                if (held >= lim.ephemeralKeysPerSessionMax()) return new Rejected(Code.LIMIT, "", 0);
            }
            if (k == null) {
                k = new K();
                k.key = c.key();
                kv.add(k);
            }
            k.value = c.value().clone();
            k.token = c.fenceLock() == null ? 0 : c.fenceToken();
            k.lock = c.fenceLock();
            k.at = now;
            k.version = current + 1;
            k.eph = c.ephemeral() ? c.sessionId() : 0;
            return new Result.Written(k.version);
        });
    }

    Result delete(Delete c) {
        if (!nameOk(c.key(), lim.keyBytesMax())
                || (c.fenceLock() != null && !nameOk(c.fenceLock(), lim.lockNameBytesMax()))) return invalid();
        return deduped(c.sessionId(), c.requestId(), () -> {
            if (c.fenceLock() != null && !holds(c.fenceLock(), c.fenceToken())) {
                stale(c.fenceLock(), c.fenceToken(), "kv:" + c.key());
                return new Rejected(Code.STALE_TOKEN, "", tokenOf(c.fenceLock()));
            }
            K k = entry(c.key());
            if (c.fenceLock() == null && !c.overrideFence() && k != null && k.lock != null)
                return new Rejected(Code.KEY_FENCED, "", 0);
            long current = k == null ? 0 : k.version;
            if (c.ifVersion() != Command.ANY_VERSION && c.ifVersion() != current)
                return new Rejected(Code.VERSION_MISMATCH, "", current);
            if (k == null) return new Rejected(Code.NOT_FOUND, "", 0);
            kv.remove(k);
            return new Result.Written(k.version);
        });
    }

    private Result deduped(long sid, long rid, java.util.function.Supplier<Result> body) {
        if (sid == 0) return body.get();
        if (rid <= 0) return invalid();
        S s = session(sid);
        if (s == null) return lost();
        Result cached = lookup(s, rid);
        if (cached != null) return cached;
        Result r = body.get();
        remember(s, rid, r, null);
        return r;
    }

    Result get(Get c) {
        if (!nameOk(c.key(), lim.keyBytesMax())) return invalid();
        K k = entry(c.key());
        return k == null
                ? new Rejected(Code.NOT_FOUND, "", 0)
                : new KvValue(k.key, k.value.clone(), k.token, k.lock, k.at, k.version, k.eph);
    }

    Result status(Status c) {
        if (!nameOk(c.lock(), lim.lockNameBytesMax())) return invalid();
        L l = lock(c.lock());
        if (l == null) return new LockView(c.lock(), null, List.of(), List.of(), now, 0, null, StaleWrites.NONE);
        List<Holder> hs = new ArrayList<>();
        for (H h : l.leases) {
            Grant g = h.grant();
            long ends = hs.isEmpty() ? l.endsAt() : NEVER;
            hs.add(new Holder(
                    g.sessionId(),
                    g.token(),
                    g.grantedAtMs(),
                    session(g.sessionId()).name,
                    g.policy(),
                    ends,
                    "",
                    h.shared()));
        }
        List<WaiterView> ws = new ArrayList<>();
        for (W w : l.queue) ws.add(new WaiterView(w.sid, w.since, session(w.sid).name, "", w.shared));
        Holder first = hs.isEmpty() ? null : hs.get(0);
        return new LockView(
                l.name, first, ws, new ArrayList<>(l.hist), now, l.delayUntil, l.ckpt, l.stale, hs, l.permits);
    }

    Result stats() {
        long held = locks.stream().filter(l -> !l.leases.isEmpty()).count();
        return new Result.Stats(sessions.size(), locks.size(), held, lastToken, now, staleTotal);
    }

    private boolean policyOk(Policy p) {
        if (p == null) return false;
        boolean delayOk = p.lockDelayMs() >= 0 && p.lockDelayMs() <= lim.lockDelayMsMax();
        boolean holdOk =
                p.maxHoldMs() == 0 || (p.maxHoldMs() >= lim.sessionTtlMsMin() && p.maxHoldMs() <= lim.maxHoldMsMax());
        boolean ttlOk = p.leaseTtlMs() == 0
                || (p.leaseTtlMs() >= lim.sessionTtlMsMin() && p.leaseTtlMs() <= lim.sessionTtlMsMax());
        return delayOk && holdOk && ttlOk;
    }

    Result renew(Command.RenewLease c) {
        if (!nameOk(c.lock(), lim.lockNameBytesMax()) || c.requestId() <= 0) return invalid();
        S s = session(c.sessionId());
        if (s == null) return lost();
        Result cached = lookup(s, c.requestId());
        if (cached != null) return cached;
        L l = lock(c.lock());
        H h = l == null ? null : l.withToken(c.token());
        Result r;
        if (h == null || h.sid() != s.id) {
            r = new Rejected(Code.NOT_OWNER, "", tokenOf(c.lock()));
        } else {
            if (l.renewAt != NEVER)
                l.renewAt = Math.max(l.renewAt, now + h.grant().policy().leaseTtlMs());
            r = new Result.LeaseRenewed(l.endsAt() == NEVER ? -1 : l.endsAt() - now);
        }
        remember(s, c.requestId(), r, null);
        return r;
    }

    Result checkpoint(Command.WriteCheckpoint c) {
        if (!nameOk(c.lock(), lim.lockNameBytesMax())
                || c.value() == null
                || c.value().length > lim.checkpointBytesMax()) return invalid();
        return deduped(c.sessionId(), c.requestId(), () -> {
            long current = tokenOf(c.lock());
            if (!holds(c.lock(), c.token())) {
                stale(c.lock(), c.token(), "checkpoint");
                return new Rejected(Code.STALE_TOKEN, "", current);
            }
            lock(c.lock()).ckpt = new Checkpoint(c.value(), c.token(), now);
            return new Ok();
        });
    }

    /**
     * Exclusive to shared in place, same token, in one step: the shared waiters at the head go in
     * with it. Only a plain lock's lease without a policy; a shared lease is left as it is.
     */
    Result downgrade(Command.Downgrade c) {
        if (!nameOk(c.lock(), lim.lockNameBytesMax()) || c.requestId() <= 0) return invalid();
        S s = session(c.sessionId());
        if (s == null) return lost();
        Result cached = lookup(s, c.requestId());
        if (cached != null) return cached;
        L l = lock(c.lock());
        H h = l == null ? null : l.withToken(c.token());
        Result r;
        if (h == null || h.sid() != s.id) {
            r = new Rejected(Code.NOT_OWNER, "", tokenOf(c.lock()));
        } else if (h.shared()) {
            r = new Ok();
        } else if (l.permits != 1 || !h.grant().policy().equals(Policy.NONE)) {
            r = invalid();
        } else {
            l.leases.set(l.leases.indexOf(h), new H(h.grant(), true));
            int before = events.size();
            handOff(l);
            reach(events.size() > before ? "downgrade.admitted" : "downgrade.alone");
            r = new Ok();
        }
        remember(s, c.requestId(), r, null);
        return r;
    }
}
