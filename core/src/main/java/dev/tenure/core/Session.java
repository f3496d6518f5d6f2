package dev.tenure.core;

import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One live session: its TTL and deadline, the locks it holds, the acquires it has queued, and
 * the outcomes of its recent requests.
 *
 * <p>{@link #heldLocks} and the two wait maps are indexes of facts whose truth lives in the
 * {@link LockRecord}s (the lease and the queue). They exist so that ending a session visits only
 * its own locks, in name order; {@link Invariants} checks that both sides agree.
 */
final class Session {
    final long id;
    final long ttlMs;
    final String clientName;
    /** When the session expires unless renewed; mirrored by one entry in the {@link DeadlineIndex}. */
    long deadlineMs;
    /** Which connection carries the session: 1 when opened, one more with every resume. */
    long attachment;

    final TreeSet<String> heldLocks = new TreeSet<>();
    /** lock name to the request id of this session's queued acquire for it. */
    final TreeMap<String, Long> waitsByLock = new TreeMap<>();
    /** The same waits keyed by request id, for cancel and wait timeouts. */
    final TreeMap<Long, String> waitsByRequest = new TreeMap<>();

    final RequestCache requests;

    Session(long id, long ttlMs, String clientName, long deadlineMs, long attachment, RequestCache requests) {
        this.id = id;
        this.ttlMs = ttlMs;
        this.clientName = clientName;
        this.deadlineMs = deadlineMs;
        this.attachment = attachment;
        this.requests = requests;
    }

    /** What leasesPerSessionMax bounds: leases held plus acquires queued. */
    int leaseCount() {
        return heldLocks.size() + waitsByLock.size();
    }

    void addWait(String lock, long requestId) {
        waitsByLock.put(lock, requestId);
        waitsByRequest.put(requestId, lock);
    }

    void removeWait(String lock, long requestId) {
        waitsByLock.remove(lock);
        waitsByRequest.remove(requestId);
    }
}
