package dev.tenure.sim;

import dev.tenure.core.Change;
import dev.tenure.gateway.WatchHub;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Each node's watch feed: the server's own {@link WatchHub}, fed by that node's replica, and
 * watchers that follow a name or a prefix on one node and resume on another from the last revision
 * they received. The property (<b>watch</b>): what each watcher receives, across all its resumes,
 * is exactly the log's sequence of changes filtered by its names, with no gap and no repeat; or
 * its watch is ended with REVISION_COMPACTED, never served with a silent gap.
 *
 * <p>The reference is the one {@link Cluster} machine's full change sequence: every replica
 * applies the same log. What the simulation adds is each replica's own progress through it: it
 * applies the log a lag after the commit, not at all while it is cut off from the cluster (a
 * watch there waits), and after a crash it restarts from a snapshot of its own, at an earlier
 * revision, keeping nothing before it. Watchers resume at random times, so resumes fall across
 * leader changes, node crashes, isolations and catch-ups. Its draws come from a stream of its own,
 * so the rest of a seed's run stays what it was.
 */
final class WatchFeeds {
    private static final int WATCHERS = 4;
    private static final String[] PREFIXES = {"", "lock", "k-", "member-"};

    private final World world;
    private final SplittableRandom random;
    private final int revisionsKeptMax;
    /** Every change the log applied, in revision order: revision r is at index r - 1. */
    private final List<Change> log = new ArrayList<>();

    private final Replica[] replicas;
    private final List<Watcher> watchers = new ArrayList<>();
    private @Nullable String violation;

    long changesReceived;
    long resumes;
    long compacted;

    WatchFeeds(World world) {
        this.world = world;
        this.random = new SplittableRandom(world.config.seed() ^ 0x77a7_c4e5L);
        // Small, so that resumes from before a restart's snapshot and watchers that fall behind happen.
        this.revisionsKeptMax = 8 + random.nextInt(40);
        this.replicas = new Replica[world.config.nodes()];
        for (int i = 0; i < replicas.length; i++) {
            replicas[i] = new Replica(i);
            replicas[i].restart(0);
        }
    }

    @Nullable
    String violation() {
        return violation;
    }

    int revisionsKeptMax() {
        return revisionsKeptMax;
    }

    /** Starts the watchers, each on a node of its own drawing. */
    void start() {
        String[] locks = World.allLocks(world.config);
        for (int i = 0; i < WATCHERS; i++) {
            boolean prefix = random.nextBoolean();
            String name = prefix
                    ? PREFIXES[random.nextInt(PREFIXES.length)]
                    : (random.nextBoolean() ? "" : "k-") + locks[random.nextInt(locks.length)];
            Watcher w = new Watcher(i, name, prefix);
            watchers.add(w);
            w.connect(0);
        }
    }

    /** The machine applied a step: its changes, in revision order; each replica applies them after a lag. */
    void applied(List<Change> changes) {
        for (Change c : changes) {
            if (c.revision() != log.size() + 1) {
                fail("the machine's change " + c.revision() + " after revision " + log.size());
                return;
            }
            log.add(c);
        }
        if (!changes.isEmpty()) {
            for (Replica r : replicas) {
                r.catchUpLater();
            }
        }
    }

    /** The node crashed: its replica and its watches are gone; watchers hear of it and resume elsewhere. */
    void crashed(int node) {
        replicas[node].hub = null;
        for (Watcher w : watchers) {
            if (w.node == node) {
                w.broken("n" + node + " crashed");
            }
        }
    }

    /**
     * The node restarted: its replica starts from a snapshot of its own, taken up to some point
     * before the crash, and applies the log after it again; its feed keeps nothing before it.
     */
    void restarted(int node) {
        Replica r = replicas[node];
        r.restart(r.applied - random.nextLong(r.applied + 1));
        r.catchUpLater();
    }

    /** The node may be in touch with the cluster again: its replica catches up. */
    void nudge(int node) {
        replicas[node].catchUpLater();
    }

    private void fail(String why) {
        if (violation == null) {
            violation = "watch: " + why;
            world.trace.add("VIOLATION " + violation);
        }
    }

    /** One node's replica as far as watches see it: what it has applied, and its feed. */
    private final class Replica {
        final int node;

        @Nullable
        WatchHub hub;

        long applied;
        boolean catchUpScheduled;

        Replica(int node) {
            this.node = node;
        }

        void restart(long revision) {
            applied = revision;
            WatchHub h = new WatchHub(WATCHERS, revisionsKeptMax, this::send);
            h.reset(revision);
            hub = h;
            world.trace.add("n" + node + " watch feed starts at revision " + revision);
        }

        /** A watch's sending task runs a moment later, as on the node's sending threads. */
        private void send(Runnable task) {
            WatchHub at = hub;
            long delay = random.nextInt(50) == 0 ? Network.ms(200) : random.nextLong(Network.ms(2));
            world.loop.after(delay, null, () -> {
                if (hub == at) {
                    task.run();
                }
            });
        }

        void catchUpLater() {
            if (catchUpScheduled) {
                return;
            }
            catchUpScheduled = true;
            world.loop.after(random.nextLong(Network.ms(3)), null, () -> {
                catchUpScheduled = false;
                catchUp();
            });
        }

        private void catchUp() {
            Node n = world.nodes.get(node);
            WatchHub h = hub;
            if (h == null || n.down() || n.isolated()) {
                return; // an isolated replica applies nothing new; Nemesis nudges it when it is back
            }
            if (applied < log.size()) {
                h.applied(new ArrayList<>(log.subList((int) applied, log.size())));
                applied = log.size();
            }
            // Caught up with the machine: its state is this replica's, so watches may start from it.
            h.serveStarts(new WatchHub.StateReader() {
                @Override
                public long revision() {
                    return world.cluster.machine().revision();
                }

                @Override
                public List<Change> current(String name, boolean prefix) {
                    List<Change> out = new ArrayList<>();
                    world.cluster.machine().current(name, prefix, out::add);
                    return out;
                }
            });
        }
    }

    /**
     * A client's watch, as the Java client's {@code Watch} keeps it: the last revision received,
     * and a resume from it at the next node when the stream breaks. It checks every change it
     * receives against the log.
     */
    private final class Watcher {
        final int id;
        final String name;
        final boolean prefix;
        int node;
        /** The last revision received; -1: start from the current state. */
        long last;

        @Nullable
        Sink sink;

        @Nullable
        AutoCloseable handle;

        Watcher(int id, String name, boolean prefix) {
            this.id = id;
            this.name = name;
            this.prefix = prefix;
            this.last = 0; // every node's feed starts at revision 0: the first watch misses nothing
            this.node = random.nextInt(replicas.length);
        }

        boolean covers(String changed) {
            return prefix ? changed.startsWith(name) : changed.equals(name);
        }

        String describe() {
            return "w" + id + " (" + (prefix ? "prefix '" : "name '") + name + "')";
        }

        /** Watches at {@code node} from the last revision (or the current state), and schedules a resume. */
        void connect(long delayNanos) {
            world.loop.after(delayNanos, null, () -> {
                WatchHub hub = replicas[node].hub;
                if (hub == null) {
                    node = (node + 1) % replicas.length;
                    connect(Network.ms(10));
                    return;
                }
                Sink s = new Sink(this);
                sink = s;
                world.trace.add(
                        "w" + id + " watches at n" + node + (last < 0 ? " from the current state" : " after " + last));
                handle = hub.watch(name, prefix, last < 0 ? WatchHub.NO_REVISION : last, s);
                if (last < 0) {
                    replicas[node].catchUpLater();
                }
                long resumeIn = random.nextLong(world.config.ttlNanos() * 4);
                world.loop.after(resumeIn, null, () -> {
                    if (sink == s) {
                        resumes++;
                        broken("resumes elsewhere");
                    }
                });
            });
        }

        /** The stream ended or is dropped: the next node, after a moment. */
        void broken(String why) {
            Sink s = sink;
            if (s == null) {
                return;
            }
            s.open = false;
            sink = null;
            closeHandle();
            world.trace.add(describe() + " at n" + node + ": " + why + "; resumes after " + last);
            node = (node + 1 + random.nextInt(replicas.length - 1)) % replicas.length;
            connect(random.nextLong(Network.ms(20)));
        }

        private void closeHandle() {
            AutoCloseable h = handle;
            handle = null;
            if (h != null) {
                try {
                    h.close();
                } catch (Exception e) {
                    fail("closing a watch threw " + e);
                }
            }
        }

        void received(Change c) {
            changesReceived++;
            if (c.revision() <= last) {
                fail(describe() + " received revision " + c.revision() + " again (last " + last + ")");
                return;
            }
            if (c.revision() > log.size() || !log.get((int) c.revision() - 1).equals(c)) {
                fail(describe() + " received " + c + ", which is not the log's change " + c.revision());
                return;
            }
            for (long r = last + 1; r < c.revision(); r++) {
                Change skipped = log.get((int) r - 1);
                if (covers(skipped.name())) {
                    fail(describe() + " missed " + skipped + ": it received " + c.revision() + " after " + last);
                    return;
                }
            }
            if (!covers(c.name())) {
                fail(describe() + " received " + c + ", not one of its names'");
                return;
            }
            last = c.revision();
        }

        void compacted(String message) {
            compacted++;
            sink = null;
            handle = null;
            world.trace.add(describe() + " at n" + node + " ended: " + message);
            // As a client that lists again: a new watch from the current state.
            last = -1;
            connect(random.nextLong(Network.ms(20)));
        }
    }

    /** One stream of one watcher; dropped (no longer open) once the watcher has moved on. */
    private final class Sink implements dev.tenure.gateway.WatchSink {
        final Watcher watcher;
        boolean open = true;

        Sink(Watcher watcher) {
            this.watcher = watcher;
        }

        @Override
        public boolean ready() {
            return open;
        }

        @Override
        public void current(List<Change> state, long revision) {
            if (open) {
                watcher.last = revision;
            }
        }

        @Override
        public void change(Change change) {
            if (open) {
                watcher.received(change);
            }
        }

        @Override
        public void end(Refusal why, String message) {
            if (!open) {
                return;
            }
            open = false;
            if (why == Refusal.COMPACTED) {
                watcher.compacted(message);
            } else {
                fail(watcher.describe() + " refused: " + why + " " + message);
            }
        }
    }
}
