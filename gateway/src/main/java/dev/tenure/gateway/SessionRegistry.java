package dev.tenure.gateway;

import dev.tenure.api.internal.Event;
import dev.tenure.api.v1.AcquireResponse;
import dev.tenure.api.v1.AttachResponse;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which session streams and waiting acquires this gateway serves, and the delivery of the state
 * machine's events to them. The cluster sends every event to every gateway; one that does not
 * serve the session drops it.
 */
final class SessionRegistry {

    private final ConcurrentHashMap<Long, AttachStream> streams = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<WaitKey, WaitingAcquire> waits = new ConcurrentHashMap<>();

    void bind(long sessionId, AttachStream stream) {
        streams.put(sessionId, stream);
    }

    /** Removes the binding only if it is still {@code stream}'s; says whether it was. */
    boolean unbind(long sessionId, AttachStream stream) {
        return streams.remove(sessionId, stream);
    }

    /**
     * True if a stream of this gateway carries session {@code id} and has not been seen to end: an
     * answer sent after this says, like an echo, that the grace had not started.
     */
    boolean carries(long sessionId) {
        AttachStream s = sessionId == 0 ? null : streams.get(sessionId);
        return s != null && s.carries(sessionId);
    }

    int boundSessions() {
        return streams.size();
    }

    void addWait(long sessionId, long requestId, WaitingAcquire wait) {
        WaitingAcquire previous = waits.put(new WaitKey(sessionId, requestId), wait);
        if (previous != null && previous != wait) {
            // A retry of the same request replaced an older call; the older one gets the same
            // answer as soon as there is one, so tell it to give up instead of hanging.
            previous.superseded();
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
                WaitingAcquire wait = waits.remove(new WaitKey(w.getSessionId(), w.getRequestId()));
                if (wait != null) {
                    wait.resolve(w.getResponse());
                }
            }
            case LEASE_ENDED -> {
                var l = event.getLeaseEnded();
                AttachStream stream = streams.get(l.getSessionId());
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
                AttachStream stream = streams.get(s.getSessionId());
                if (stream != null) {
                    stream.end(s.getEnd(), "session " + s.getSessionId() + " ended: " + s.getEnd());
                }
            }
            case KIND_NOT_SET -> {}
        }
    }

    /** An acquire call parked in this gateway until its lock is granted or its wait ends. */
    interface WaitingAcquire {
        void resolve(AcquireResponse response);

        void superseded();
    }

    private record WaitKey(long sessionId, long requestId) {}
}
