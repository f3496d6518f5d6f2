package dev.tenure.sim;

import dev.tenure.core.Change;
import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Limits;
import dev.tenure.core.Result;
import dev.tenure.core.StateMachine;
import dev.tenure.gateway.WireMapping;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The replicated log and the real {@link StateMachine} it feeds, with leadership terms. Every
 * replica applies the same log, so one machine stands for all of them; what the simulation adds
 * is what the consensus engine does around it:
 *
 * <ul>
 *   <li>Each entry is stamped with the leader's clock (each node's clock has its own offset and
 *       drift), and applied a commit latency after it was submitted, in submission order.
 *   <li>The deadline timer is the leader's: it fires when the leader's clock reaches the machine's
 *       next deadline, and not at all during an election.
 *   <li>A leader change fails every entry in flight (the node cannot know whether it landed); each
 *       one is either lost or committed by the new leader ahead of its term, reply unseen. During
 *       the election nothing commits: submissions wait, and fail if it lasts too long. The new
 *       term begins with {@link StateMachine#onNewTerm} at the new leader's clock.
 * </ul>
 */
final class Cluster {
    static final long EPOCH_MS = 1_700_000_000_000L;
    static final long SUBMIT_TIMEOUT_NANOS = Network.ms(1_000);

    /** How a node learns the outcome of what it submitted. */
    interface Reply {
        void done(Result result);

        void failed(String why);
    }

    private static final class Pending {
        final Command command;
        final Reply reply;
        boolean answered;
        long survivorTimestampMs;

        Pending(Command command, Reply reply) {
            this.command = command;
            this.reply = reply;
        }
    }

    private final World world;
    private final StateMachine machine;
    private final ArrayDeque<Pending> inFlight = new ArrayDeque<>();
    private final List<Pending> waiting = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<Change> changes = new ArrayList<>();
    private int leader;
    private long term;
    private boolean electing;
    private long lastCommitNanos;
    private EventLoop.@Nullable Event deadlineTimer; // null while no deadline is due
    private long deadlineTimerMs = Long.MAX_VALUE;

    Cluster(World world) {
        this.world = world;
        this.machine = new StateMachine(Limits.defaults());
        machine.setFullInvariantChecks(true);
        machine.trackChanges();
    }

    StateMachine machine() {
        return machine;
    }

    int leader() {
        return leader;
    }

    boolean electing() {
        return electing;
    }

    /** The leader's clock, as the log stamps entries: epoch ms. */
    long leaderMs() {
        return nodeMs(leader, world.loop.nowNanos());
    }

    long nodeMs(int node, long simNanos) {
        long k = 1_000_000 + world.config.nodePpm()[node];
        return EPOCH_MS + world.config.nodeOffsetMs()[node] + Math.floorDiv(simNanos * k, 1_000_000_000_000L);
    }

    /** The first simulated time at which {@code node}'s clock reads at least {@code ms}. */
    long simNanosAt(int node, long ms) {
        long k = 1_000_000 + world.config.nodePpm()[node];
        long elapsedMs = ms - EPOCH_MS - world.config.nodeOffsetMs()[node];
        if (elapsedMs > 10_000_000) {
            return Long.MAX_VALUE / 2; // beyond any run
        }
        return Math.max(0, Math.floorDiv(elapsedMs * 1_000_000_000_000L + k - 1, k));
    }

    void submit(Command command, Reply reply) {
        Pending p = new Pending(command, reply);
        if (electing) {
            // As the gateway's cluster channel does: keep it until a leader takes it, or time out.
            waiting.add(p);
            world.loop.after(SUBMIT_TIMEOUT_NANOS, null, () -> {
                if (waiting.remove(p)) {
                    fail(p, "no leader within the request timeout");
                }
            });
            return;
        }
        long at = Math.max(lastCommitNanos, world.loop.nowNanos() + 200_000 + world.random.nextLong(3_000_000));
        lastCommitNanos = at;
        inFlight.addLast(p);
        long submittedInTerm = term;
        world.loop.at(at, null, () -> {
            if (term == submittedInTerm && inFlight.peekFirst() == p) {
                inFlight.removeFirst();
                apply(p, leaderMs());
            }
        });
    }

    /** The leader is deposed; a new one, {@code next}, takes over after {@code electionNanos}. */
    void changeLeader(int next, long electionNanos) {
        if (electing) {
            return;
        }
        electing = true;
        term++;
        long lastStampMs = leaderMs();
        List<Pending> survivors = new ArrayList<>();
        for (Pending p : inFlight) {
            if (world.random.nextBoolean()) {
                p.survivorTimestampMs = lastStampMs;
                survivors.add(p);
            }
            fail(p, "leader changed");
        }
        inFlight.clear();
        cancelDeadlineTimer();
        world.trace.add("cluster: leader n" + leader + " deposed; " + survivors.size()
                + " in-flight entries survive; election " + electionNanos / 1_000_000 + "ms, then n" + next);
        world.loop.after(electionNanos, null, () -> newTerm(next, survivors));
    }

    private void newTerm(int next, List<Pending> survivors) {
        for (Pending p : survivors) {
            apply(p, p.survivorTimestampMs); // entries of the old term come first in the log
        }
        leader = next;
        electing = false;
        long nowMs = leaderMs();
        if (world.config.mutation() != SimConfig.Mutation.NO_TERM_RESTART) {
            machine.onNewTerm(nowMs);
        }
        world.trace.add(
                "cluster: term " + term + " leader n" + leader + " at " + nowMs + " (machine " + machine.nowMs() + ")");
        afterStep(null, null);
        deliverEvents();
        rearmDeadlineTimer();
        List<Pending> resubmit = new ArrayList<>(waiting);
        waiting.clear();
        for (Pending p : resubmit) {
            submit(p.command, p.reply);
        }
    }

    private void apply(Pending p, long timestampMs) {
        Result result = machine.apply(timestampMs, p.command);
        world.trace.add("apply@" + timestampMs + " " + Describe.command(p.command) + " -> " + Describe.result(result));
        afterStep(p.command, result);
        if (!p.answered) {
            p.answered = true;
            p.reply.done(result);
        }
        deliverEvents();
        rearmDeadlineTimer();
    }

    private void fireDeadlines() {
        deadlineTimer = null;
        deadlineTimerMs = Long.MAX_VALUE;
        if (electing) {
            return;
        }
        machine.advance(leaderMs());
        afterStep(null, null);
        deliverEvents();
        rearmDeadlineTimer();
    }

    private void afterStep(@Nullable Command command, @Nullable Result result) {
        machine.drainChanges(changes);
        world.watch.applied(changes);
        changes.clear();
        machine.drainEvents(events);
        for (Event e : events) {
            world.trace.add("event " + Describe.event(e));
        }
        world.checker.afterStep(command, result, events);
    }

    /** Every node gets every event; the one serving the session delivers it (as the real service does). */
    private void deliverEvents() {
        List<Event> out = new ArrayList<>(events);
        events.clear();
        for (Event e : out) {
            var wire = WireMapping.toEgress(e).getEvent();
            for (Node n : world.nodes) {
                n.onEvent(wire);
            }
        }
    }

    private void rearmDeadlineTimer() {
        long next = machine.nextDeadlineMs();
        if (electing || next == deadlineTimerMs) {
            return;
        }
        cancelDeadlineTimer();
        if (next != Long.MAX_VALUE) {
            deadlineTimerMs = next;
            deadlineTimer = world.loop.at(simNanosAt(leader, next), null, this::fireDeadlines);
        }
    }

    private void cancelDeadlineTimer() {
        if (deadlineTimer != null) {
            deadlineTimer.cancel();
            deadlineTimer = null;
        }
        deadlineTimerMs = Long.MAX_VALUE;
    }

    private static void fail(Pending p, String why) {
        if (!p.answered) {
            p.answered = true;
            p.reply.failed(why);
        }
    }
}
