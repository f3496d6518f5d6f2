package dev.tenure.sim;

import dev.tenure.api.v1.AcquireRequest;
import dev.tenure.api.v1.AttachFrames;
import dev.tenure.api.v1.AttachRequest;
import dev.tenure.api.v1.KvPutRequest;
import dev.tenure.api.v1.ReleaseRequest;
import dev.tenure.api.v1.RenewLeaseRequest;
import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Result;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * One node's gateway, as in the server: the calls it serves, which session stream each session
 * is bound to, and the acquires parked here until the log decides them. A node crash loses all of
 * that at once; what it had already submitted may still commit, but the answers go nowhere.
 */
final class Gateway {
    static final Cluster.Reply IGNORE = new Cluster.Reply() {
        @Override
        public void done(Result result) {}

        @Override
        public void failed(String why) {}
    };

    private record WaitKey(long sessionId, long requestId) implements Comparable<WaitKey> {
        @Override
        public int compareTo(WaitKey o) {
            int c = Long.compare(sessionId, o.sessionId);
            return c != 0 ? c : Long.compare(requestId, o.requestId);
        }
    }

    final int node;
    private final World world;
    private final TreeMap<Long, ServerCall> calls = new TreeMap<>();
    private final TreeMap<Long, AttachHandler> streams = new TreeMap<>();
    private final TreeMap<WaitKey, ParkedAcquire> waits = new TreeMap<>();
    private final ClusterLink link;
    private boolean down;
    /** How many times the node crashed: a grace timer set before a crash must not fire after it. */
    private long crashes;

    Gateway(World world, int node) {
        this.world = world;
        this.node = node;
        this.link = new ClusterLink(world);
    }

    boolean down() {
        return down;
    }

    SimConfig.Mutation mutation() {
        return world.config.mutation();
    }

    // ---- frames from clients ----

    void open(SimCall<?, ?> call) {
        if (down) {
            call.downClose(Status.UNAVAILABLE.withDescription("connection refused: n" + node + " is down"));
            return;
        }
        ServerCall sc = new ServerCall(call, false, () -> calls.remove(call.id));
        calls.put(call.id, sc);
        if (call.attachMany()) {
            sc.attachMany = new AttachManyHandler(this, sc);
        } else if (!call.unary()) {
            sc.attach = new AttachHandler(this, sc);
        }
    }

    void message(SimCall<?, ?> call, Object message) {
        ServerCall sc = calls.get(call.id);
        if (sc == null) {
            return; // opened before this node restarted: that call already failed
        }
        if (sc.attach != null) {
            sc.attach.onNext((AttachRequest) message);
        } else if (sc.attachMany != null) {
            sc.attachMany.onNext((AttachFrames) message);
        } else {
            unary(sc, message);
        }
    }

    /** The second copy of a unary request. Acquires are not duplicated: see {@link SimCall}. */
    void duplicate(SimCall<?, ?> call, Object message) {
        if (!down && !(message instanceof AcquireRequest)) {
            unary(new ServerCall(call, true, () -> {}), message);
        }
    }

    void halfClosed(SimCall<?, ?> call) {
        ServerCall sc = calls.get(call.id);
        if (sc == null) {
            return;
        }
        if (sc.attach != null) {
            calls.remove(call.id);
            sc.attach.clientEnded(true);
        } else if (sc.attachMany != null) {
            calls.remove(call.id);
            sc.attachMany.clientEnded(true);
        }
    }

    void cancelled(SimCall<?, ?> call) {
        ServerCall sc = calls.remove(call.id);
        world.trace.add("n" + node + " sees " + call.process.name() + " cancel " + call.name()
                + (sc == null ? " (unknown call)" : ""));
        if (sc == null) {
            return;
        }
        sc.cancelled = true;
        if (sc.attach != null) {
            sc.attach.clientEnded(false);
        } else if (sc.attachMany != null) {
            sc.attachMany.clientEnded(false);
        } else if (sc.acquire != null) {
            sc.acquire.cancelled();
        }
    }

    private void unary(ServerCall sc, Object message) {
        if (message instanceof AcquireRequest r) {
            new ParkedAcquire(this, sc, r).start();
        } else if (message instanceof ReleaseRequest r) {
            submit(Wire.release(r), answer(sc, Wire::releaseResponse));
        } else if (message instanceof RenewLeaseRequest r) {
            submit(Wire.renew(r), answer(sc, Wire::renewResponse));
        } else if (message instanceof KvPutRequest r) {
            submit(Wire.put(r), answer(sc, Wire::putResponse));
        } else {
            sc.close(Status.UNIMPLEMENTED.withDescription("not simulated: " + message.getClass()));
        }
    }

    private static Cluster.Reply answer(ServerCall sc, Function<Result, Object> toWire) {
        return new Cluster.Reply() {
            @Override
            public void done(Result result) {
                sc.reply(toWire.apply(result));
            }

            @Override
            public void failed(String why) {
                sc.close(Status.UNAVAILABLE.withDescription(why));
            }
        };
    }

    /** A trace line about this node: {@code what} it sees or does. */
    void trace(String what) {
        world.trace.add("n" + node + " " + what);
    }

    // ---- the log, through this node's cluster link ----

    void submit(Command command, Cluster.Reply reply) {
        link.submit(command, reply);
    }

    void renew(long sessionId, ClusterLink.RenewReply reply) {
        link.renew(sessionId, reply);
    }

    // ---- sessions and waits served here ----

    /**
     * Runs {@code action} once {@code delayMs} have passed on this node's clock, unless the node
     * crashed meanwhile (its sessions then end at their TTL, its waits with them or their time).
     */
    void later(long delayMs, Runnable action) {
        if (delayMs == 0) {
            action.run();
            return;
        }
        long ppm = world.config.nodePpm()[node];
        long realNanos = Network.ms(delayMs) * 1_000_000 / (1_000_000 + ppm);
        long incarnation = crashes;
        world.loop.after(realNanos, null, () -> {
            if (!down && crashes == incarnation) {
                action.run();
            }
        });
    }

    void bind(long sessionId, AttachHandler stream) {
        streams.put(sessionId, stream);
    }

    boolean unbind(long sessionId, AttachHandler stream) {
        return streams.remove(sessionId, stream);
    }

    void addWait(ParkedAcquire wait) {
        ParkedAcquire previous = waits.put(new WaitKey(wait.sessionId(), wait.requestId()), wait);
        if (previous != null && previous != wait) {
            previous.superseded();
        }
    }

    void removeWait(ParkedAcquire wait) {
        waits.remove(new WaitKey(wait.sessionId(), wait.requestId()), wait);
    }

    /** Events reach a node that is up and in touch with the cluster; egress to an unreachable one is lost. */
    void onEvent(Event event) {
        if (down || link.isolated()) {
            return;
        }
        if (event instanceof Event.WaitResolved w) {
            ParkedAcquire wait = waits.remove(new WaitKey(w.sessionId(), w.requestId()));
            if (wait != null) {
                wait.resolve(Wire.acquireResponse(w.result()));
            }
        } else if (event instanceof Event.LeaseEnded l) {
            AttachHandler stream = streams.get(l.sessionId());
            if (stream != null) {
                stream.leaseEnded(l.lock(), l.token(), Wire.end(l.end()));
            }
        } else if (event instanceof Event.SessionEnded s) {
            AttachHandler stream = streams.get(s.sessionId());
            if (stream != null) {
                stream.end(Wire.end(s.end()), "session " + s.sessionId() + " ended: " + s.end());
            }
        }
    }

    // ---- faults ----

    /** The node's process dies: every connection to it is reset and its gateway state is gone. */
    void crash() {
        down = true;
        crashes++;
        link.reset();
        for (ServerCall sc : new ArrayList<>(calls.values())) {
            sc.close(Status.UNAVAILABLE.withDescription("connection reset: n" + node + " crashed"));
        }
        calls.clear();
        streams.clear();
        waits.clear();
    }

    void restart() {
        down = false;
    }

    /** The node loses touch with the rest of the cluster, while its clients can still reach it. */
    void isolate(long untilNanos) {
        link.isolate(untilNanos);
    }

    boolean isolated() {
        return link.isolated();
    }

    /**
     * A middlebox resets the connections of {@code process} to this node. The node sees every
     * call on them end at once, exactly as when that process dies; the client hears of it
     * {@code clientNoticeNanos} later (0: at once), e.g. when it next sends. Off unless the run asks.
     */
    void reset(ClientProcess process, long clientNoticeNanos) {
        for (ServerCall sc : new ArrayList<>(calls.values())) {
            if (sc.client.process == process) {
                Runnable notice =
                        () -> sc.client.downClose(Status.UNAVAILABLE.withDescription("connection reset by peer"));
                if (clientNoticeNanos == 0) {
                    notice.run();
                } else {
                    world.loop.after(clientNoticeNanos, process, notice);
                }
                cancelled(sc.client);
            }
        }
    }
}
