package dev.tenure.core;

import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.Rejected;
import org.jspecify.annotations.Nullable;

/**
 * What the request cache remembers for one request id: a settled {@link Result}, the lock an
 * acquire is still queued for, or the token of a grant. A queued acquire has no final result yet;
 * a retry of it reports the queue position as it is now (the holder may have changed), so only
 * the lock is kept.
 *
 * <p>Every live session keeps up to requestIdCacheMax of these, so what each keeps is bounded
 * without the names and bytes the request carried: a grant keeps its token alone (a retry is
 * answered from the lease, which holds everything the grant said, or, once the lease has ended,
 * without it: see {@link Requests}), and a refusal the first {@link #MESSAGE_CHARS_MAX}
 * characters of its message (the code and token in full). The answer to the request itself is
 * whole; only a retry's is cut.
 */
record Outcome(@Nullable Result result, @Nullable String waitingLock, long grantedToken) {
    /**
     * How much of a refusal's message a retry gets back: enough to name a limit. Names in a
     * message can be hundreds of bytes, and each live session keeps up to requestIdCacheMax
     * outcomes, so their messages would be most of what sessions cost.
     */
    static final int MESSAGE_CHARS_MAX = 32;

    static Outcome settled(Result result) {
        if (result instanceof Granted g) {
            return new Outcome(null, null, g.grant().token());
        }
        if (result instanceof Rejected r && r.message().length() > MESSAGE_CHARS_MAX) {
            return new Outcome(new Rejected(r.code(), shortened(r.message()), r.currentToken()), null, 0);
        }
        return new Outcome(result, null, 0);
    }

    static Outcome waiting(String lock) {
        return new Outcome(null, lock, 0);
    }

    boolean pending() {
        return waitingLock != null;
    }

    boolean granted() {
        return grantedToken != 0;
    }

    /** The message's first characters and an ellipsis; never half a surrogate pair. */
    private static String shortened(String message) {
        int end = MESSAGE_CHARS_MAX - 1;
        if (Character.isHighSurrogate(message.charAt(end - 1))) {
            end--;
        }
        return message.substring(0, end) + "\u2026";
    }
}
