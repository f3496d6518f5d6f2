package dev.tenure.client;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The leases one session holds, by token, so that the server's LeaseEnded pushes and the
 * session's loss reach each of them. A push can overtake the answer to the acquire it is about;
 * it is remembered until that grant arrives, so the lease is born lost instead of trusted.
 * Leases are told they are lost outside this object's lock: their listeners may call back in.
 */
final class SessionLeases {
    /** LeaseEnded pushes remembered for grants still in flight (bounded). */
    private static final int ENDED_EARLY_MAX = 64;

    // Guarded by this.
    private final Map<Long, Lease> byToken = new HashMap<>();
    private final Map<Long, LossReason> endedEarly = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, LossReason> eldest) {
            return size() > ENDED_EARLY_MAX;
        }
    };
    private boolean closed;

    /** Adds a new grant's lease; false once the session is lost, when it is not kept. */
    boolean add(Lease lease) {
        LossReason endedFirst;
        synchronized (this) {
            if (closed) {
                return false;
            }
            endedFirst = endedEarly.remove(lease.token());
            if (endedFirst == null) {
                byToken.put(lease.token(), lease);
            }
        }
        if (endedFirst != null) {
            lease.markLost(endedFirst); // its LeaseEnded push overtook the grant
        } else if (!lease.isValid()) {
            lease.markInDoubt(); // granted while no stream proves the session
        }
        return true;
    }

    synchronized @Nullable Lease get(long token) {
        return byToken.get(token);
    }

    synchronized void remove(Lease lease) {
        byToken.remove(lease.token(), lease);
    }

    /** The server ended the lease with {@code token}, which may not have arrived yet. */
    void ended(long token, LossReason reason) {
        Lease lease;
        synchronized (this) {
            lease = byToken.get(token);
            if (lease == null && !closed) {
                endedEarly.put(token, reason);
            }
        }
        if (lease != null) {
            lease.markLost(reason);
        }
    }

    /** No stream proved the session in time: every lease stops being valid now (for now). */
    void inDoubtAll() {
        List<Lease> held;
        synchronized (this) {
            held = new ArrayList<>(byToken.values());
        }
        held.forEach(Lease::markInDoubt);
    }

    /** The session is lost: so is every lease, and every grant that arrives from now on. */
    void loseAll(LossReason reason) {
        List<Lease> held;
        synchronized (this) {
            closed = true;
            held = new ArrayList<>(byToken.values());
            byToken.clear();
        }
        held.forEach(l -> l.markLost(reason));
    }
}
