package dev.tenure.core;

import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.Written;
import org.jspecify.annotations.Nullable;

/**
 * Put, delete and get on the fenced KV.
 *
 * <p>The fence check compares the write's token with the lock's current lease at apply time,
 * in log order. A holder that paused past its lease presents an older token than the lease
 * now current (tokens only grow), so its late write is refused; a write fenced on a free lock
 * is refused too, since no lease is current.
 *
 * <p>A key written fenced stays fenced: an unfenced put or delete of it is refused
 * ({@link Code#KEY_FENCED}) unless the command asks to override, because such a write would
 * land whatever the lock's holder believes, which is exactly what the fence exists to prevent.
 *
 * <p>Every entry carries a version (1 on create, one more per put); a write may name the version
 * it expects, and is refused ({@link Code#VERSION_MISMATCH}) when the key's is another. The fence
 * is checked first and then the version: both must pass. Ephemeral keys are in {@link
 * EphemeralKeys}.
 */
final class KvCommands {
    private final State state;

    private final LeaseLifecycle lifecycle;

    KvCommands(State state, LeaseLifecycle lifecycle) {
        this.state = state;
        this.lifecycle = lifecycle;
    }

    Result put(Put c) {
        Rejected bad = Shapes.first(
                Shapes.key(c.key(), state.limits),
                Shapes.value(c.value(), state.limits),
                Shapes.fenceLock(c.fenceLock(), state.limits),
                Shapes.principal(c.principal(), state.limits));
        return bad != null ? bad : deduplicated(c.sessionId(), c.requestId(), () -> decidePut(c));
    }

    Result delete(Delete c) {
        Rejected bad = Shapes.first(Shapes.key(c.key(), state.limits), Shapes.fenceLock(c.fenceLock(), state.limits));
        return bad != null ? bad : deduplicated(c.sessionId(), c.requestId(), () -> decideDelete(c));
    }

    Result get(Get c) {
        Rejected bad = Shapes.key(c.key(), state.limits);
        if (bad != null) {
            return bad;
        }
        FencedKv.Entry e = state.kv.get(c.key());
        if (e == null) {
            return notFound(c.key());
        }
        return new KvValue(
                e.key(), e.value().clone(), e.token(), e.lock(), e.writtenAtMs(), e.version(), e.ephemeralSessionId());
    }

    private interface Decision {
        Result decide();
    }

    /** Session 0 writes without dedup (an unattached client); any other session must be live. */
    private Result deduplicated(long sessionId, long requestId, Decision decision) {
        if (sessionId == 0) {
            return decision.decide();
        }
        Rejected bad = Shapes.requestId(requestId);
        if (bad != null) {
            return bad;
        }
        return Requests.once(state, sessionId, requestId, session -> decision.decide());
    }

    private Result decidePut(Put c) {
        Rejected stale = fence(c.fenceLock(), c.fenceToken(), c.key());
        if (stale != null) {
            return stale;
        }
        Rejected refused = Shapes.first(
                fencedKey(c.fenceLock(), c.overrideFence(), c.key()),
                versionMismatch(c.ifVersion(), c.key()),
                EphemeralKeys.conflict(state, c));
        if (refused != null) {
            return refused;
        }
        FencedKv.Entry next = entry(c);
        Rejected full = Shapes.first(principalFull(next), full(next), EphemeralKeys.full(state, next));
        if (full != null) {
            return full;
        }
        state.kv.put(next);
        state.change(r -> Change.key(r, Change.Kind.KV_PUT, next, state.nowMs));
        state.touchKey(c.key());
        return new Written(next.version());
    }

    /**
     * Refuses a conditional write when the key's version is not the one expected (0: absent). Read
     * from the stored entry at apply, in log order, so of two writers that read the same version
     * only the first to reach the log is carried out.
     */
    private @Nullable Rejected versionMismatch(long ifVersion, String key) {
        if (ifVersion == Command.ANY_VERSION) {
            return null;
        }
        FencedKv.Entry e = state.kv.get(key);
        long current = e == null ? 0 : e.version();
        if (current == ifVersion) {
            return null;
        }
        return new Rejected(
                Code.VERSION_MISMATCH,
                "version mismatch: the current version is " + current + "; nothing changed",
                current);
    }

    /**
     * The entry {@code c} would store. A fenced write names a held lock (the fence check passed),
     * so the entry shares that lock's name instead of keeping a copy of its own; the principal
     * is one string per distinct name, as a session's is.
     */
    private FencedKv.Entry entry(Put c) {
        String lock = c.fenceLock() == null ? null : state.locks.existing(c.fenceLock()).name;
        long token = c.fenceLock() == null ? 0 : c.fenceToken();
        FencedKv.Entry old = state.kv.get(c.key());
        return new FencedKv.Entry(
                c.key(),
                c.value().clone(),
                token,
                lock,
                state.nowMs,
                c.principal().intern(),
                old == null ? 1 : old.version() + 1,
                c.ephemeral() ? c.sessionId() : 0);
    }

    /**
     * The node-wide bounds: a new key needs room under kvKeysMax, and a write that stores more
     * bytes than the one it replaces needs room under kvBytesMax. A write that stores no more is
     * always let through, so a store filled to its budget can still be rewritten in place.
     */
    private @Nullable Rejected full(FencedKv.Entry next) {
        FencedKv.Entry old = state.kv.get(next.key());
        if (old == null && state.kv.size() >= state.limits.kvKeysMax()) {
            return new Rejected(Code.LIMIT, "kvKeysMax (" + state.limits.kvKeysMax() + ") reached", 0);
        }
        long added = FencedKv.bytes(next) - (old == null ? 0 : FencedKv.bytes(old));
        long max = state.limits.kvBytesMax();
        if (added > 0 && state.kv.bytes() + added > max) {
            return new Rejected(
                    Code.LIMIT,
                    "kvBytesMax (" + max + ") reached: the KV holds " + state.kv.bytes() + " bytes and this write adds "
                            + added,
                    0);
        }
        return null;
    }

    /**
     * The writer's quota, when it has a principal: a key it does not hold yet counts as a new key
     * of its own (the last writer holds a key), and the bytes it adds to what it holds must fit.
     */
    private @Nullable Rejected principalFull(FencedKv.Entry next) {
        String principal = next.principal();
        if (principal.isEmpty()) {
            return null;
        }
        PrincipalLimits quota = state.quota(principal);
        FencedKv.Entry old = state.kv.get(next.key());
        boolean holds = old != null && old.principal().equals(principal);
        FencedKv.Usage usage = state.kv.usage(principal);
        if (!holds && usage.keys() >= quota.kvKeysMax()) {
            return new Rejected(
                    Code.LIMIT,
                    "kvKeysPerPrincipalMax (" + quota.kvKeysMax() + ") reached by principal " + principal,
                    0);
        }
        long added = FencedKv.bytes(next) - (holds && old != null ? FencedKv.bytes(old) : 0);
        if (added > 0 && usage.bytes() + added > quota.kvBytesMax()) {
            return new Rejected(
                    Code.LIMIT,
                    "kvBytesPerPrincipalMax (" + quota.kvBytesMax() + ") reached by principal " + principal
                            + ": it holds " + usage.bytes() + " bytes and this write adds " + added,
                    0);
        }
        return null;
    }

    private Result decideDelete(Delete c) {
        Rejected stale = fence(c.fenceLock(), c.fenceToken(), c.key());
        if (stale != null) {
            return stale; // fence first: a stale writer must not even learn whether the key exists
        }
        Rejected fenced = fencedKey(c.fenceLock(), c.overrideFence(), c.key());
        if (fenced != null) {
            return fenced;
        }
        // A conditional delete of an absent key is a mismatch (it names version 0), not NOT_FOUND:
        // the caller asked about a version, and 0 is the answer.
        Rejected mismatch = versionMismatch(c.ifVersion(), c.key());
        if (mismatch != null) {
            return mismatch;
        }
        FencedKv.Entry old = state.kv.get(c.key());
        if (old == null) {
            return notFound(c.key());
        }
        state.kv.remove(c.key());
        state.change(r -> Change.key(r, Change.Kind.KV_DELETED, old, state.nowMs));
        state.touchKey(c.key());
        return new Written(old.version());
    }

    private @Nullable Rejected fence(@Nullable String fenceLock, long fenceToken, String key) {
        if (fenceLock == null) {
            return null;
        }
        LockRecord lock = state.locks.get(fenceLock);
        long current = lock == null ? 0 : lock.currentToken();
        // Any current lease of the lock passes: a semaphore's or a shared lease's holders each
        // write under their own token, and each token stops passing when its own lease ends.
        if (lock != null && lock.holdsToken(fenceToken)) {
            return null;
        }
        lifecycle.staleWrite(fenceLock, fenceToken, "kv:" + key);
        return new Rejected(
                Code.STALE_TOKEN,
                "fence token " + fenceToken + " is not the current token of lock " + fenceLock + " (current token "
                        + current + (current == 0 ? ": the lock is free)" : ")"),
                current);
    }

    /**
     * Refuses an unfenced write to a key whose stored value was written fenced, unless overridden.
     * Decided from the stored entry alone (its lock), so every replica decides the same.
     */
    private @Nullable Rejected fencedKey(@Nullable String fenceLock, boolean overrideFence, String key) {
        if (fenceLock != null || overrideFence) {
            return null;
        }
        FencedKv.Entry e = state.kv.get(key);
        if (e == null || e.lock() == null) {
            return null;
        }
        return new Rejected(
                Code.KEY_FENCED,
                "key " + key + " was last written fenced by lock " + e.lock() + " (token " + e.token()
                        + "): write it with the lock's current token, or override the fence explicitly"
                        + " to write it unfenced",
                0);
    }

    private static Rejected notFound(String key) {
        return new Rejected(Code.NOT_FOUND, "key " + key + " not found", 0);
    }
}
