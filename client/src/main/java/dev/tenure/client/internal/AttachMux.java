package dev.tenure.client.internal;

import dev.tenure.api.v1.AttachEvent;
import dev.tenure.api.v1.AttachEvents;
import dev.tenure.api.v1.AttachFrame;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.TenureGrpc;
import dev.tenure.client.spi.TimeSource;
import io.grpc.Channel;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Every session a client has on one endpoint, carried on one AttachMany call: each session's
 * {@link SessionStream} is a sub-stream of it, named by a ref. The node then keeps one stream
 * per client process instead of one per session (about 2 KB of its memory each), and the
 * keepalives of all sessions due at one instant leave as one message: they are queued and sent
 * by a flush scheduled right after them on the client's scheduler, which runs every timer due at
 * that instant first. Open, Resume and Close leave at once (with whatever is queued before them,
 * so each sub-stream's frames keep their order).
 *
 * <p>The call starts with the first sub-stream and is half-closed when the last one leaves; when it
 * breaks, every sub-stream on it is broken, and the next one to start opens a new call.
 *
 * <p>Echoes prove the call, not each session: one echo an interval asks the node whether the call
 * still stands, and its answer proves, from the echo's send time, every sub-stream that was seen
 * opened before it left and has neither left nor ended since (see AttachFrames.echo). So a
 * process's 10,000 sessions cost the node one echo an interval, not 10,000, and the client no
 * work per session either: a session reads its call's proof when it needs it
 * ({@link SessionStream#proofNanos()}), and the call tells its sessions only when its proof
 * lapses. An echo unanswered for the doubt time, on a call that has heard nothing at all for as
 * long, means a silent connection: it is replaced, and the call broken, so its sessions resume on
 * the new one.
 */
public final class AttachMux {
    /** Frames per AttachFrames message: a burst of keepalives stays far below the message limit. */
    static final int FRAMES_PER_MESSAGE_MAX = 1_000;
    /** How late a check may run and still judge a connection silent: see {@link Call#silentFor}. */
    public static final long LATE_TOLERANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

    private final Channel channel;
    private final Heard heard;
    private final TimeSource time;
    private final long echoIntervalNanos;
    private final long doubtAfterNanos;
    private final long proofLifetimeNanos;
    private final Consumer<String> replaceConnection;
    private final long lingerNanos;
    private final long lingerMaxNanos;
    private @Nullable Call current; // guarded by this
    /** Calls given up as silent and not yet cancelled: see {@link #lingering()}. */
    private int lingeringCalls; // guarded by this

    private long nextRef; // guarded by this

    /**
     * @param echoIntervalNanos how often to echo; 0 for never (without a disconnect grace there is
     *     nothing to prove: a closed connection ends its sessions at once)
     * @param doubtAfterNanos how long an echo may go unanswered before the call is in doubt
     * @param proofLifetimeNanos how long after an answered echo's send time its sessions' leases
     *     stay valid on its account: when the proof lapses, the call tells them
     * @param replaceConnection replaces {@code channel} for the sessions that resume after a silent
     *     connection; it is given the reason
     * @param lingerNanos how long a call given up as silent is left open at least, and how often it
     *     is checked after that: see {@link #abandon}
     * @param lingerMaxNanos how long it is left open at most, for sessions that have not moved
     *     elsewhere by then (the TTL: a node that heard nothing from a session for that long has
     *     ended it whatever the call does)
     */
    public AttachMux(
            Channel channel,
            Heard heard,
            TimeSource time,
            long echoIntervalNanos,
            long doubtAfterNanos,
            long proofLifetimeNanos,
            Consumer<String> replaceConnection,
            long lingerNanos,
            long lingerMaxNanos) {
        this.channel = channel;
        this.heard = heard;
        this.time = time;
        this.echoIntervalNanos = echoIntervalNanos;
        this.doubtAfterNanos = doubtAfterNanos;
        this.proofLifetimeNanos = proofLifetimeNanos;
        this.replaceConnection = replaceConnection;
        this.lingerNanos = lingerNanos;
        this.lingerMaxNanos = Math.max(lingerNanos, lingerMaxNanos);
    }

    public Channel channel() {
        return channel;
    }

    /** Puts {@code stream} on the current call, opening one if there is none. */
    synchronized void join(SessionStream stream) {
        if (current == null) {
            Call c = new Call();
            current = c;
            if (echoIntervalNanos > 0) {
                c.echoTimer = time.schedule(() -> echoTick(c), untilNextEcho());
                // With the call's first frames: answered at once, it tells a live connection
                // from a silent one while an Open or Resume waits for the log. A node that
                // predates echoes ignores it.
                c.echoWanted = true;
            }
            // The call lives in the root context: a session opened from inside a gRPC handler
            // must outlive that handler's call. An immediate failure comes back through
            // c.onError, on this thread (the lock is reentrant) or once join returns.
            stream.ref = ++nextRef;
            c.subs.put(stream.ref, stream);
            stream.call = c;
            Context.ROOT.run(() -> TenureGrpc.newStub(channel).attachMany(c));
            return;
        }
        stream.ref = ++nextRef;
        current.subs.put(stream.ref, stream);
        stream.call = current;
    }

    /** Queues a frame of {@code stream}; {@code now} sends it (and all queued before it) at once. */
    void send(SessionStream stream, AttachRequest request, boolean now) {
        Call c;
        boolean schedule;
        synchronized (this) {
            c = stream.call;
            if (c == null || c.dead || c.subs.get(stream.ref) != stream) {
                return; // the sub-stream ended or its call broke; the handler was or will be told
            }
            c.queued.add(AttachFrame.newBuilder()
                    .setRef(stream.ref)
                    .setRequest(request)
                    .build());
            if (now) {
                c.flushLocked();
                return;
            }
            schedule = !c.flushScheduled;
            c.flushScheduled = true;
        }
        if (schedule) {
            time.schedule(() -> flush(c), 0);
        }
    }

    private synchronized void flush(Call c) {
        c.flushScheduled = false;
        c.flushLocked();
    }

    /**
     * Takes {@code stream} off its call, telling the node (to it, as if the session's own stream
     * ended). The last one to leave half-closes the call.
     */
    synchronized void leave(SessionStream stream) {
        Call c = stream.call;
        if (c == null || c.dead || !c.subs.remove(stream.ref, stream)) {
            return;
        }
        c.queued.add(AttachFrame.newBuilder()
                .setRef(stream.ref)
                .setDetach(AttachFrame.Detach.getDefaultInstance())
                .build());
        c.flushLocked();
        c.endIfEmptyLocked();
    }

    /**
     * {@code stream}'s Open or Resume was confirmed: echoes sent from now on prove it, if its node
     * answers them.
     */
    synchronized void confirmed(SessionStream stream, boolean nodeEchoes) {
        Call c = stream.call;
        if (c == null || c.dead || c.subs.get(stream.ref) != stream) {
            return;
        }
        if (!nodeEchoes) {
            // The call's first echo went to a node that ignores them: never wait for its answer.
            c.echoSendNanos.clear();
            return;
        }
        c.nodeEchoes = true;
        stream.provedFromEcho = c.echoSeq + 1;
    }

    /** Sends an echo now, with whatever is queued: a stream just confirmed wants a fresh proof. */
    void echoSoon(SessionStream stream) {
        Call c;
        synchronized (this) {
            c = stream.call;
            if (c == null || c.dead || !c.nodeEchoes) {
                return;
            }
            c.echoWanted = true;
            if (c.flushScheduled) {
                return;
            }
            c.flushScheduled = true;
        }
        time.schedule(() -> flush(c), 0);
    }

    /** Echo ticks fall on a grid of the interval, as keepalives do: every call of a process asks at one instant. */
    private long untilNextEcho() {
        return echoIntervalNanos - Math.floorMod(time.nanoTime(), echoIntervalNanos);
    }

    private void echoTick(Call c) {
        Status doubt = null;
        boolean schedule = false;
        synchronized (this) {
            if (c.dead) {
                return;
            }
            c.echoTimer = time.schedule(() -> echoTick(c), untilNextEcho());
            long now = time.nanoTime();
            Map.Entry<Long, Long> oldest = c.echoSendNanos.firstEntry();
            // The tick was due on the grid: how late it runs is how late this process ran.
            long late = Math.floorMod(now, echoIntervalNanos);
            if (oldest != null
                    && c.nodeEchoes
                    && now - oldest.getValue() >= doubtAfterNanos
                    && c.silentFor(doubtAfterNanos, now, late)) {
                doubt = Status.UNAVAILABLE.withDescription("no echo answered within "
                        + TimeUnit.NANOSECONDS.toMillis(now - oldest.getValue())
                        + " ms and the connection silent: replaced");
            } else if (c.nodeEchoes && !c.provedByCalls(now - echoIntervalNanos)) {
                // Also while an echo is overdue on a call that still hears from its node: the node
                // is slow, and when it catches up the latest answer is the freshest proof.
                c.echoWanted = true;
                schedule = !c.flushScheduled;
                c.flushScheduled = true;
            }
        }
        if (doubt != null) {
            // First, so that the sessions' resumes go out on the new connection.
            replaceConnection.accept(doubt.getDescription());
            c.giveUp(doubt);
        } else if (schedule) {
            time.schedule(() -> flush(c), 0);
        }
    }

    /**
     * True if {@code stream}'s call has heard nothing for {@code nanos}, judged by a check that ran
     * {@code lateNanos} after it was due (see {@link Call#silentFor}).
     */
    synchronized boolean silentFor(SessionStream stream, long nanos, long lateNanos) {
        Call c = stream.call;
        return c != null && !c.dead && c.silentFor(nanos, time.nanoTime(), lateNanos);
    }

    /**
     * The connection under {@code stream}'s call is silent: every sub-stream on it is broken with
     * {@code status} (they resume elsewhere or on a new connection), and the call is cancelled
     * once every session it carried has moved on (a Resume of it confirmed on another stream, or
     * the session over), checked every linger, and no later than the longest linger.
     *
     * <p>Not at once: the node may be merely paused (a long collection, a starved machine), not
     * cut off. Cancelling would tell it, as soon as it runs again, that every session on the call
     * lost its stream, and start their grace; all of them would then have to resume within that
     * grace, through the log of a node that is just catching up, and a short grace is shorter than
     * such a node takes. Left open, the call keeps them bound there until their Resumes move them,
     * however slowly they are applied. Waiting costs nothing when the connection is really dead:
     * the client trusts its leases on proofs alone (none come on a call given up), and the node
     * ends a session no later for a call that stays open.
     */
    public void abandon(SessionStream stream, Status status) {
        Call c;
        synchronized (this) {
            c = stream.call;
        }
        if (c != null) {
            c.giveUp(status);
        }
    }

    /**
     * True while a call given up as silent is still open: its connection must stay open with it (a
     * channel shut down cancels its calls).
     */
    public synchronized boolean lingering() {
        return lingeringCalls > 0;
    }

    /** Sub-streams on the current call (for tests). */
    synchronized int carried() {
        return current == null ? 0 : current.subs.size();
    }

    /** One AttachMany call and the sub-streams on it. */
    final class Call implements ClientResponseObserver<AttachFrames, AttachEvents> {
        final Map<Long, SessionStream> subs = new TreeMap<>(); // guarded by AttachMux.this
        final List<AttachFrame> queued = new ArrayList<>(); // guarded by AttachMux.this
        /** Send time of each echo not yet answered, by seq. */
        final TreeMap<Long, Long> echoSendNanos = new TreeMap<>(); // guarded by AttachMux.this
        // The latest answered echo: nanos written before seq, read after it, so a reader that
        // sees a seq sees a send time at least as late as that echo's.
        private volatile long provedNanos;
        private volatile long provedSeq;
        TimeSource.@Nullable Cancellable lapseTimer; // guarded by AttachMux.this

        boolean flushScheduled; // guarded by AttachMux.this
        boolean dead; // guarded by AttachMux.this
        /** The call's node answers echoes (a sub-stream's Opened said so). */
        boolean nodeEchoes; // guarded by AttachMux.this

        boolean echoWanted; // guarded by AttachMux.this: the next flush carries an echo
        long echoSeq; // guarded by AttachMux.this: the last echo sent
        TimeSource.@Nullable Cancellable echoTimer; // guarded by AttachMux.this

        @Nullable
        ClientCallStreamObserver<AttachFrames> requests; // guarded by AttachMux.this
        /** When the call started: a connection is not silent for longer than the call has waited. */
        final long startNanos = time.nanoTime();

        @Override
        public void beforeStart(ClientCallStreamObserver<AttachFrames> requestStream) {
            synchronized (AttachMux.this) {
                requests = requestStream;
            }
        }

        /** Sends what is queued; called under the mux's lock, so messages leave one at a time, in order. */
        void flushLocked() {
            // requests is set by beforeStart, which gRPC runs inside attachMany(), under join's
            // lock: a live call always has it.
            if (dead || requests == null) {
                queued.clear();
                echoWanted = false;
                return;
            }
            // Taken first: a direct-executor transport may answer inside onNext, on this thread,
            // and what that answer queues must wait for the next flush, not be cleared with this one.
            List<AttachFrame> batch = new ArrayList<>(queued);
            queued.clear();
            long echo = 0;
            if (echoWanted) {
                echoWanted = false;
                echo = ++echoSeq;
                // Dated before it leaves: the node answers no earlier.
                echoSendNanos.put(echo, time.nanoTime());
            }
            try {
                int from = 0;
                do {
                    int to = Math.min(batch.size(), from + FRAMES_PER_MESSAGE_MAX);
                    AttachFrames.Builder message = AttachFrames.newBuilder().addAllFrames(batch.subList(from, to));
                    if (to == batch.size()) {
                        message.setEcho(echo); // after every frame: the frames come first on the node too
                    }
                    if (message.getFramesCount() > 0 || message.getEcho() > 0) {
                        requests.onNext(message.build());
                    }
                    from = to;
                } while (from < batch.size());
            } catch (RuntimeException e) {
                // The call already ended; its onError tells every sub-stream.
            }
        }

        void endIfEmptyLocked() {
            if (!subs.isEmpty() || dead) {
                return;
            }
            dead = true;
            cancelEchoes();
            if (current == this) {
                current = null;
            }
            try {
                if (requests != null) {
                    requests.onCompleted();
                }
            } catch (RuntimeException e) {
                // The call already ended.
            }
        }

        @Override
        public void onNext(AttachEvents events) {
            heard.at(time.nanoTime());
            for (AttachEvent e : events.getEventsList()) {
                SessionStream s;
                synchronized (AttachMux.this) {
                    s = subs.get(e.getRef());
                    if (s == null) {
                        continue; // a sub-stream that already left: nothing it can act on
                    }
                    boolean last =
                            e.hasFailed() || (e.hasResponse() && e.getResponse().hasSessionEnded());
                    if (last) {
                        subs.remove(e.getRef());
                        endIfEmptyLocked();
                    }
                }
                // Outside the lock: the handler takes its own, and calls back into this mux.
                if (e.hasFailed()) {
                    s.failed(Status.fromCodeValue(e.getFailed().getCode())
                            .withDescription(e.getFailed().getMessage()));
                } else if (e.hasResponse()) {
                    s.received(e.getResponse());
                }
            }
            if (events.getEchoed() > 0) {
                echoed(events.getEchoed());
            }
            // Again at the end: gRPC hands this call its messages one at a time, so the time spent
            // on a large one is not silence of the connection.
            heard.at(time.nanoTime());
        }

        /**
         * Echo {@code seq} was answered: every sub-stream confirmed before it left, and still on
         * the call (the events before this answer have been handled), is proved from its send
         * time. Nothing is done per sub-stream: each reads the proof when it needs it.
         */
        private void echoed(long seq) {
            synchronized (AttachMux.this) {
                Long sent = echoSendNanos.get(seq);
                if (sent == null || dead) {
                    return; // not outstanding: an older answer than one already handled
                }
                echoSendNanos.headMap(seq, true).clear();
                provedNanos = sent;
                provedSeq = seq;
                if (lapseTimer == null) {
                    lapseTimer = time.schedule(this::checkLapse, sent + proofLifetimeNanos - time.nanoTime());
                }
            }
        }

        /**
         * The send time of the latest answered echo that proves a sub-stream first proved by echo
         * {@code fromSeq}, or {@link SessionStream#NO_PROOF}.
         */
        long proofNanos(long fromSeq) {
            return provedSeq >= fromSeq ? provedNanos : SessionStream.NO_PROOF;
        }

        /**
         * Lazily re-armed, as a session's validity timer is: echoes move the proof many times per
         * lifetime, the timer follows when it fires. Once the proof has lapsed, the sessions that
         * counted on it are told (they decide what it means for their leases), and the next answer
         * arms the timer again.
         */
        private void checkLapse() {
            List<SessionStream> told = new ArrayList<>();
            synchronized (AttachMux.this) {
                lapseTimer = null;
                if (dead) {
                    return;
                }
                long left = provedNanos + proofLifetimeNanos - time.nanoTime();
                if (left > 0) {
                    lapseTimer = time.schedule(this::checkLapse, left);
                    return;
                }
                for (SessionStream s : subs.values()) {
                    if (s.provedFromEcho > 0) {
                        told.add(s);
                    }
                }
            }
            for (SessionStream s : told) {
                s.proofLapsed();
            }
        }

        /**
         * Nothing at all heard for {@code nanos} (longer on a connection that has heard nothing
         * yet: {@link Heard#silenceNanos}), on any call of the connection, nor since this call
         * started: not merely no answer to one request (an answer to another
         * may have come in just before the connection died), and judged only by a
         * check that ran on time. One that ran more than {@link #LATE_TOLERANCE_NANOS} late says
         * this process was paused or starved, and what arrived meanwhile may not have been read
         * yet: the next check judges. A call that still hears from its node is never silent, so
         * a slow node keeps its connection (resuming its sessions would only load it more); their
         * leases lapse until its answers catch up.
         */
        boolean silentFor(long nanos, long nowNanos, long lateNanos) {
            long last = Math.max(heard.lastNanos() - startNanos, 0) + startNanos;
            return lateNanos <= LATE_TOLERANCE_NANOS && nowNanos - last >= heard.silenceNanos(nanos);
        }

        /**
         * True if every sub-stream an echo would prove has had a call proved later than
         * {@code sinceNanos} (CallResponse.session_attached): the echo would tell them nothing
         * new. Clients busy with calls then send no echoes at all. Under the mux's lock.
         */
        boolean provedByCalls(long sinceNanos) {
            for (SessionStream s : subs.values()) {
                if (s.provedFromEcho > 0 && !s.callProvedSince(sinceNanos)) {
                    return false;
                }
            }
            return true;
        }

        /** Under the mux's lock. */
        void cancelEchoes() {
            if (echoTimer != null) {
                echoTimer.cancel();
                echoTimer = null;
            }
            if (lapseTimer != null) {
                lapseTimer.cancel();
                lapseTimer = null;
            }
            echoSendNanos.clear();
        }

        @Override
        public void onError(Throwable t) {
            broken(Status.fromThrowable(t));
        }

        @Override
        public void onCompleted() {
            broken(Status.UNAVAILABLE.withDescription("server completed the stream without SessionEnded"));
        }

        /** See {@link AttachMux#abandon}: what arrives on the call from now on is ignored. */
        void giveUp(Status status) {
            List<SessionStream> carried = broken(status);
            synchronized (AttachMux.this) {
                lingeringCalls++;
            }
            long until = time.nanoTime() + lingerMaxNanos;
            time.schedule(() -> lingerOrCancel(carried, status, until), lingerNanos);
        }

        /** See {@link AttachMux#abandon}. */
        private void lingerOrCancel(List<SessionStream> carried, Status status, long untilNanos) {
            carried.removeIf(SessionStream::movedOn);
            long left = untilNanos - time.nanoTime();
            if (!carried.isEmpty() && left > 0) {
                time.schedule(() -> lingerOrCancel(carried, status, untilNanos), Math.min(lingerNanos, left));
                return;
            }
            cancelQuietly(status);
            synchronized (AttachMux.this) {
                lingeringCalls--;
            }
        }

        void cancelQuietly(Status status) {
            ClientCallStreamObserver<AttachFrames> r;
            synchronized (AttachMux.this) {
                r = requests;
            }
            if (r != null) {
                try {
                    r.cancel(status.getDescription(), null);
                } catch (RuntimeException e) {
                    // already ended
                }
            }
        }

        /** Breaks every sub-stream on the call; returns them. */
        List<SessionStream> broken(Status status) {
            List<SessionStream> carried;
            synchronized (AttachMux.this) {
                dead = true;
                cancelEchoes();
                if (current == this) {
                    current = null;
                }
                carried = new ArrayList<>(subs.values());
                subs.clear();
                queued.clear();
            }
            for (SessionStream s : carried) {
                s.failed(status);
            }
            return carried;
        }
    }
}
