package dev.tenure.client;

import dev.tenure.client.internal.AttachMux;
import dev.tenure.client.internal.Endpoints;
import dev.tenure.client.internal.Retrier;
import dev.tenure.client.internal.SessionStream;
import dev.tenure.client.spi.TimeSource;
import io.grpc.Channel;
import io.grpc.Status;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** What a client's sessions share: endpoints, retrier, clock, listener and settings. */
final class ClientContext {
    final Endpoints endpoints;
    final Retrier retrier;
    final TimeSource time;
    final TenureListener listener;
    final long ttlNanos;
    /** 0: the session ends as soon as its connection closes. */
    final long graceNanos;
    /** Negative: the default for the TTL the server confirms. */
    final long driftMarginNanos;

    final long requestTimeoutNanos;
    final String clientName;
    final Set<Session> sessions = ConcurrentHashMap.newKeySet();
    /** Open sessions by id, for the proofs that carried calls bring ({@link #callProved}). */
    private final Map<Long, Liveness> open = new ConcurrentHashMap<>();

    private final AttachMux[] muxes; // guarded by this

    ClientContext(
            Endpoints endpoints,
            TimeSource time,
            TenureListener listener,
            long ttlNanos,
            long graceNanos,
            long driftMarginNanos,
            long requestTimeoutNanos,
            String clientName) {
        this.endpoints = endpoints;
        this.retrier = new Retrier(endpoints, time);
        this.time = time;
        this.listener = new SafeListener(listener);
        this.ttlNanos = ttlNanos;
        this.graceNanos = graceNanos;
        this.driftMarginNanos = driftMarginNanos;
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.clientName = clientName;
        this.muxes = new AttachMux[endpoints.size()];
        endpoints.proofs(this::callProved);
    }

    void opened(long sessionId, Liveness live) {
        open.put(sessionId, live);
    }

    void ended(long sessionId) {
        open.remove(sessionId);
    }

    private void callProved(Channel channel, long sessionId, long sentNanos) {
        Liveness live = open.get(sessionId);
        if (live != null) {
            live.callProved(channel, sentNanos);
        }
    }

    /** The call that carries this client's sessions on endpoint {@code index}; throws once the client is closed. */
    synchronized AttachMux attachMux(int index) {
        Channel channel = endpoints.channel(index);
        // A channel replaced since (a silent connection) gets a mux of its own.
        if (muxes[index] == null || muxes[index].channel() != channel) {
            muxes[index] = new AttachMux(
                    channel,
                    endpoints.heard(index),
                    time,
                    echoIntervalNanos(),
                    doubtAfterNanos(),
                    proofLifetimeNanos(),
                    why -> replaceConnection(index, channel, why),
                    graceNanos,
                    ttlNanos);
        }
        return muxes[index];
    }

    /**
     * Nothing has arrived on {@code stream}'s connection for too long: a new connection replaces
     * it, and every session on it resumes (on the new one, or the next endpoint).
     */
    void connectionSilent(SessionStream stream, Status status) {
        Channel channel = stream.channel();
        if (channel != null) {
            replaceConnection(stream.endpoint(), channel, status.getDescription());
        }
        stream.abandonCall(status);
    }

    private void replaceConnection(int index, Channel channel, String why) {
        AttachMux calls;
        synchronized (this) {
            calls = muxes[index] != null && muxes[index].channel() == channel ? muxes[index] : null;
        }
        // Left open for the grace at least, and for as long as the call carrying its sessions
        // lingers: see AttachMux#abandon.
        if (endpoints.replace(index, channel, graceNanos, calls == null ? () -> false : calls::lingering)) {
            listener.connectionReplaced(endpoints.target(index), why);
        }
    }

    /** The window echoes keep proven: the grace, or the TTL if shorter (it ends the session first). */
    private long proofWindowNanos() {
        return Math.min(ttlNanos, graceNanos);
    }

    /**
     * An echo every eighth of the window: a healthy stream's proof lags it by that and a round
     * trip. None without a grace: a closed connection then ends its sessions at once, and there is
     * nothing to prove.
     */
    long echoIntervalNanos() {
        return graceNanos > 0 ? Math.max(proofWindowNanos() / 8, TimeUnit.MILLISECONDS.toNanos(5)) : 0;
    }

    /** The shortest silence after which a connection is judged dead, whatever the grace. */
    static final long DOUBT_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    /**
     * An echo unanswered for a third of the window puts its call in doubt, well before validity runs
     * out; but not before {@link #DOUBT_MIN_NANOS}. A loaded machine leaves a live connection silent
     * for 100-200 ms now and then (three nodes and a client of 1,000 sessions on two cores), and
     * replacing it costs every session on it a Resume through the log, which loads the node more
     * and silences the next connection too: with a 250 ms grace, a third of it (83 ms) replaced
     * hundreds of connections in a minute and lost sessions that way. The floor costs only in a
     * half-open connection the node has seen close: a grace shorter than the floor plus a Resume
     * ends the session before the client notices (safe: its leases lapsed first; see
     * GUARANTEES.md 1).
     */
    long doubtAfterNanos() {
        return Math.max(proofWindowNanos() / 3, DOUBT_MIN_NANOS);
    }

    /**
     * How long after a proof leases stay valid: the grace less its margin, no longer than the
     * TTL less its (see {@link dev.tenure.client.internal.Horizon#validUntilNanos()}).
     */
    long proofLifetimeNanos() {
        return Math.min(graceNanos - marginNanos(graceNanos), ttlNanos - marginNanos(ttlNanos));
    }

    static long defaultMarginNanos(long ttlNanos) {
        return Math.max(ttlNanos / 20, TimeUnit.MILLISECONDS.toNanos(20));
    }

    long marginNanos(long ttlNanos) {
        return driftMarginNanos >= 0 ? driftMarginNanos : defaultMarginNanos(ttlNanos);
    }

    /** How long close() waits for the server to confirm the session's end. */
    long closeWaitNanos() {
        return Math.min(requestTimeoutNanos, TimeUnit.SECONDS.toNanos(1));
    }
}
