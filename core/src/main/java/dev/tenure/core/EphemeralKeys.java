package dev.tenure.core;

import dev.tenure.core.Command.Put;
import dev.tenure.core.Result.Rejected;
import org.jspecify.annotations.Nullable;

/**
 * The rules of ephemeral keys: a key written with {@code ephemeral} lives while its writing session
 * lives, and the apply that ends the session (close, expiry, disconnect, revocation) deletes it.
 *
 * <p>Ownership: while the owning session lives, a put by any other session is refused ({@link
 * Code#EPHEMERAL_CONFLICT}), so a key registered by a live member cannot be taken over; the owner
 * may overwrite it. The owner's put without {@code ephemeral} makes the key durable (it then
 * outlives the session), and a put with it keeps it ephemeral: every put says what the key is from
 * then on, as it says the value. A delete is not a takeover, so it is decided as for any key.
 *
 * <p>Every owner is a live session (an invariant): the session's end deletes its keys in the same
 * apply, so no replica ever holds an ephemeral key of a session it has ended.
 */
final class EphemeralKeys {
    private EphemeralKeys() {}

    /** Refuses an ephemeral put without a session, and a put over a key another live session holds. */
    static @Nullable Rejected conflict(State state, Put c) {
        if (c.ephemeral() && c.sessionId() == 0) {
            return Shapes.invalid("an ephemeral put needs a session: the key lives while its session does");
        }
        FencedKv.Entry old = state.kv.get(c.key());
        if (old == null || !old.ephemeral() || old.ephemeralSessionId() == c.sessionId()) {
            return null;
        }
        return new Rejected(
                Code.EPHEMERAL_CONFLICT,
                "key " + c.key() + " is ephemeral, held by live session " + old.ephemeralSessionId()
                        + "; it is deleted when that session ends; nothing changed",
                0);
    }

    /** A session's ephemeral keys are deleted in one apply when it ends, so their count is bounded. */
    static @Nullable Rejected full(State state, FencedKv.Entry next) {
        if (!next.ephemeral()) {
            return null;
        }
        FencedKv.Entry old = state.kv.get(next.key());
        boolean holds = old != null && old.ephemeralSessionId() == next.ephemeralSessionId();
        int max = state.limits.ephemeralKeysPerSessionMax();
        if (!holds && state.kv.ephemeralCount(next.ephemeralSessionId()) >= max) {
            return new Rejected(
                    Code.LIMIT,
                    "ephemeralKeysPerSessionMax (" + max + ") reached by session " + next.ephemeralSessionId(),
                    0);
        }
        return null;
    }

    /**
     * Deletes the ephemeral keys of an ending session, in key order, so every replica deletes the
     * same keys in the same order in the apply that ends it.
     */
    static void deleteOf(State state, long sessionId) {
        for (String key : state.kv.ephemeralKeys(sessionId)) {
            FencedKv.Entry old = java.util.Objects.requireNonNull(state.kv.get(key), "an ephemeral key is held");
            state.kv.remove(key);
            state.change(r -> Change.key(r, Change.Kind.KV_DELETED, old, state.nowMs));
            state.touchKey(key);
        }
    }
}
