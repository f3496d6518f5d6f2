package dev.tenure.sim;

import java.util.ArrayList;
import java.util.List;

/** Injects each {@link Fault} at its time. Faults that cannot apply then (one node is already down) are skipped. */
final class Nemesis {
    private final World world;

    Nemesis(World world) {
        this.world = world;
    }

    void schedule(List<Fault> faults) {
        for (Fault f : faults) {
            world.loop.at(f.atNanos(), null, () -> inject(f));
        }
    }

    private void inject(Fault f) {
        world.trace.add("FAULT " + f.describe());
        long d = f.durationNanos();
        switch (f.kind()) {
            case PARTITION -> {
                for (int node = 0; node < world.config.nodes(); node++) {
                    if (f.node() < 0 || f.node() == node) {
                        for (Network.Dir dir : Network.Dir.values()) {
                            if (f.dir() == null || f.dir() == dir) {
                                world.network.partition(f.slot(), node, dir, world.loop.nowNanos() + d);
                            }
                        }
                    }
                }
            }
            case PAUSE -> world.processes[f.slot()].pause(d);
            case CRASH -> crashClient(f.slot(), f.silent(), d);
            case LEADER_CHANGE -> {
                int next = otherLiveNode(world.cluster.leader());
                if (next >= 0) {
                    world.cluster.changeLeader(next, d);
                }
            }
            case NODE_CRASH -> crashNode(f.node(), d);
            case ISOLATION -> isolateNode(f.node(), d);
            case STORM -> world.network.storm(world.loop.nowNanos() + d);
            case RESET -> world.nodes.get(f.node()).reset(world.processes[f.slot()], d);
        }
    }

    private void crashClient(int slot, boolean silent, long restartAfterNanos) {
        ClientProcess p = world.processes[slot];
        if (p.crashed()) {
            world.trace.add("(c" + slot + " is already down)");
            return;
        }
        p.crash(silent);
        world.loop.after(restartAfterNanos, null, () -> {
            ClientProcess next = new ClientProcess(world, slot, p.incarnation + 1);
            world.processes[slot] = next;
            world.trace.add(next.name() + " starts");
            next.app.start();
        });
    }

    private void crashNode(int node, long restartAfterNanos) {
        if (anotherNodeImpaired()) {
            return;
        }
        if (node == world.cluster.leader() && world.cluster.electing()) {
            world.trace.add("(skipped: an election is under way)");
            return;
        }
        world.nodes.get(node).crash();
        world.watch.crashed(node);
        if (node == world.cluster.leader()) {
            world.cluster.changeLeader(
                    otherLiveNode(node), Network.ms(20) + world.random.nextLong(world.config.ttlNanos()));
        }
        world.loop.after(restartAfterNanos, null, () -> {
            world.nodes.get(node).restart();
            world.watch.restarted(node);
            world.trace.add("n" + node + " restarted");
        });
    }

    /** A leader cut off from the others loses its term; the rest elect one of themselves. */
    private void isolateNode(int node, long nanos) {
        if (anotherNodeImpaired()) {
            return;
        }
        if (node == world.cluster.leader()) {
            int next = otherLiveNode(node);
            if (next < 0 || world.cluster.electing()) {
                world.trace.add("(skipped: no other leader possible now)");
                return;
            }
            world.cluster.changeLeader(next, Network.ms(20) + world.random.nextLong(world.config.ttlNanos()));
        }
        world.nodes.get(node).isolate(world.loop.nowNanos() + nanos);
        // Back in touch, its replica applies the log it missed.
        world.loop.after(nanos, null, () -> world.watch.nudge(node));
    }

    /** One node down or cut off at a time: with three nodes, a second would cost the quorum. */
    private boolean anotherNodeImpaired() {
        for (Node g : world.nodes) {
            if (g.down() || g.isolated()) {
                world.trace.add("(skipped: n" + g.node + " is " + (g.down() ? "down)" : "cut off)"));
                return true;
            }
        }
        return false;
    }

    private int otherLiveNode(int not) {
        List<Integer> candidates = new ArrayList<>();
        for (Node g : world.nodes) {
            if (g.node != not && !g.down() && !g.isolated()) {
                candidates.add(g.node);
            }
        }
        return candidates.isEmpty() ? -1 : candidates.get(world.random.nextInt(candidates.size()));
    }
}
