package dev.tenure.core;

import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * One live session: its TTL and deadline, the locks it holds, the acquires it has queued, and
 * the outcomes of its recent requests.
 *
 * <p>{@link #heldLocks()} and the two wait maps are indexes of facts whose truth lives in the
 * {@link LockRecord}s (the lease and the queue). They exist so that ending a session visits only
 * its own locks, in name order; {@link Invariants} checks that both sides agree.
 */
final class SessionRecord {
    final long id;
    final long ttlMs;
    final String clientName;
    /** Who the opening client authenticated as; empty without client certificates. */
    final String principal;
    // The secret's hash as two longs, not a SecretHash: a field pair costs a session 16 bytes, a
    // record object of its own 32.
    private final long secretHi;
    private final long secretLo;
    /** When the session expires unless renewed; mirrored by one entry in the {@link DeadlineIndex}. */
    long deadlineMs;
    /** Which connection carries the session: 1 when opened, one more with every resume. */
    long attachment;

    // The locks held: most sessions hold one, which takes a field instead of a TreeSet of its own
    // (about 120 bytes a session). Change them only through addHeld and removeHeld.
    /** The one lock held while exactly one is; null otherwise. */
    private @Nullable String oneHeld;
    /** Two or more locks held, ascending; null otherwise. */
    private @Nullable TreeSet<String> manyHeld;
    // Most sessions never wait, so the two wait indexes are a shared empty map until the first
    // wait and again after the last (about 100 bytes a session). Read them freely; change them
    // only through addWait and removeWait.
    /** lock name to the request id of this session's queued acquire for it. */
    SortedMap<String, Long> waitsByLock = Collections.emptySortedMap();
    /** The same waits keyed by request id, for cancel and wait timeouts. */
    SortedMap<Long, String> waitsByRequest = Collections.emptySortedMap();

    final RequestCache requests;

    SessionRecord(
            long id,
            long ttlMs,
            String clientName,
            String principal,
            SecretHash secretHash,
            long deadlineMs,
            long attachment,
            RequestCache requests) {
        this.id = id;
        this.ttlMs = ttlMs;
        this.secretHi = secretHash.hi();
        this.secretLo = secretHash.lo();
        // One copy per distinct name: a client process opens all its sessions under one name,
        // and each open would otherwise keep its own (about 50 B a session).
        this.clientName = clientName.intern();
        this.principal = principal.intern();
        this.deadlineMs = deadlineMs;
        this.attachment = attachment;
        this.requests = requests;
    }

    /** What a request must show to act for this session: see {@link Command.WithSecret}. */
    SecretHash secretHash() {
        return new SecretHash(secretHi, secretLo);
    }

    /** What leasesPerSessionMax bounds: leases held plus acquires queued. */
    int leaseCount() {
        return heldCount() + waitsByLock.size();
    }

    /** The locks this session holds, in name order; a copy. */
    List<String> heldLocks() {
        if (manyHeld != null) {
            return List.copyOf(manyHeld);
        }
        return oneHeld == null ? List.of() : List.of(oneHeld);
    }

    int heldCount() {
        return manyHeld != null ? manyHeld.size() : oneHeld == null ? 0 : 1;
    }

    boolean holds(String lock) {
        return manyHeld != null ? manyHeld.contains(lock) : lock.equals(oneHeld);
    }

    void addHeld(String lock) {
        if (manyHeld != null) {
            manyHeld.add(lock);
        } else if (oneHeld == null) {
            oneHeld = lock;
        } else if (!oneHeld.equals(lock)) {
            manyHeld = new TreeSet<>(List.of(oneHeld, lock));
            oneHeld = null;
        }
    }

    void removeHeld(String lock) {
        if (manyHeld == null) {
            if (lock.equals(oneHeld)) {
                oneHeld = null;
            }
            return;
        }
        manyHeld.remove(lock);
        if (manyHeld.size() == 1) {
            oneHeld = manyHeld.first();
            manyHeld = null;
        }
    }

    void addWait(String lock, long requestId) {
        if (waitsByLock.isEmpty()) {
            waitsByLock = new TreeMap<>();
            waitsByRequest = new TreeMap<>();
        }
        waitsByLock.put(lock, requestId);
        waitsByRequest.put(requestId, lock);
    }

    void removeWait(String lock, long requestId) {
        if (waitsByLock.isEmpty()) {
            return; // the shared empty map: nothing to remove, and it refuses changes
        }
        waitsByLock.remove(lock);
        waitsByRequest.remove(requestId);
        if (waitsByLock.isEmpty() && waitsByRequest.isEmpty()) {
            waitsByLock = Collections.emptySortedMap();
            waitsByRequest = Collections.emptySortedMap();
        }
    }
}
