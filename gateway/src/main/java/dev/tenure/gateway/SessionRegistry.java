package dev.tenure.gateway;

import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachResponse;
import dev.tenure.log.v1.Event;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which session streams and waiting acquires this gateway serves, and the delivery of the state
 * machine's events to them. The cluster sends every event to every gateway; one that does not
 * serve the session drops it.
 */
final class SessionRegistry {

    private final ConcurrentHashMap<Long, SessionStream> streams = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<WaitKey, WaitingAcquire> waits = new ConcurrentHashMap<>();

    void bind(long sessionId, SessionStream stream) {
        streams.put(sessionId, stream);
    }

    /** Removes the binding only if it is still {@code stream}'s; says whether it was. */
    boolean unbind(long sessionId, SessionStream stream) {
        return streams.remove(sessionId, stream);
    }

    /**
     * True if a stream of this gateway carries session {@code id} and has not been seen to end: an
     * answer sent after this says, like an echo, that the grace had not started.
     */
    boolean carries(long sessionId) {
        SessionStream s = sessionId == 0 ? null : streams.get(sessionId);
        return s != null && s.carries(sessionId);
    }

    int boundSessions() {
        return streams.size();
    }

    void addWait(long sessionId, long requestId, WaitingAcquire wait) {
        WaitingAcquire[] loser = new WaitingAcquire[1];
        waits.compute(new WaitKey(sessionId, requestId), (key, previous) -> {
            if (previous == null || previous == wait) {
                return wait;
            }
            // Two tries of one request: the later try is the one its client still waits on. Tries
            // can arrive out of order (an earlier one read late from a connection the client has
            // since given up), so "later" is the try's number, not the order of arrival; the
            // other one gets the same answer as soon as there is one, so it gives up instead of
            // hanging.
            boolean keepPrevious = previous.attempt() > wait.attempt();
            loser[0] = keepPrevious ? wait : previous;
            return keepPrevious ? previous : wait;
        });
        if (loser[0] != null) {
            loser[0].superseded();
        }
    }

    /** Removes the wait if it is still {@code wait}; says whether it was. */
    boolean removeWait(long sessionId, long requestId, WaitingAcquire wait) {
        return waits.remove(new WaitKey(sessionId, requestId), wait);
    }

    /** Runs on the log port's thread, in log order. */
    void onEvent(Event event) {
        switch (event.getKindCase()) {
            case WAIT_RESOLVED -> {
                var w = event.getWaitResolved();
                WaitKey key = new WaitKey(w.getSessionId(), w.getRequestId());
                WaitingAcquire wait = waits.get(key);
                if (wait != null && !laterThanResolved(wait, w.getAttempt()) && waits.remove(key, wait)) {
                    wait.resolve(w.getResponse());
                }
            }
            case LEASE_ENDED -> {
                var l = event.getLeaseEnded();
                SessionStream stream = streams.get(l.getSessionId());
                if (stream != null) {
                    stream.leaseEnded(AttachResponse.LeaseEnded.newBuilder()
                            .setLock(l.getLock())
                            .setToken(l.getToken())
                            .setEnd(l.getEnd())
                            .build());
                }
            }
            case SESSION_ENDED -> {
                var s = event.getSessionEnded();
                SessionStream stream = streams.get(s.getSessionId());
                if (stream != null) {
                    stream.end(s.getEnd(), "session " + s.getSessionId() + " ended: " + s.getEnd());
                }
            }
            case KIND_NOT_SET -> {}
        }
    }

    /**
     * Whether {@code wait} is a try the log had not applied when the wait ended (the event names
     * the latest it had; 0 and 1 both mean the first). Such a try is answered by its own command's
     * reply instead: the earlier try's call was cut, and the gateway that held it withdraws it
     * shortly after; if that withdrawal is applied before the later try, it ends the very grant
     * this event reports, and the client would hold a lease the log has already given to the next
     * waiter. Applied after it, the later try's reply is that request's outcome: the grant if it
     * still stands, else the withdrawal's CANCELLED. A try numbered 0 (a client that numbers
     * none) is answered as before.
     */
    private static boolean laterThanResolved(WaitingAcquire wait, long resolvedAttempt) {
        return wait.attempt() > Math.max(1, resolvedAttempt);
    }

    /** An acquire call parked in this gateway until its lock is granted or its wait ends. */
    interface WaitingAcquire {
        /** The try's number (AcquireRequest.attempt): a higher one is a later try of the request. */
        long attempt();

        void resolve(AcquireResponse response);

        void superseded();
    }

    private record WaitKey(long sessionId, long requestId) {}
}
