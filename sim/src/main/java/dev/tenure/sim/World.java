package dev.tenure.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Everything one run shares; built by {@link Simulation}, one per seed. */
final class World {
    final SimConfig config;
    /** The run's only source of randomness. */
    final SplittableRandom random;

    final EventLoop loop = new EventLoop();
    final Trace trace = new Trace(loop, Integer.getInteger("tenure.sim.tail", 120));
    final Network network;
    final List<Node> nodes = new ArrayList<>();
    final Checker checker;
    final Cluster cluster;
    /** Each node's watch feed and the watchers that follow them. */
    final WatchFeeds watch;
    /** The live (or last) process of each client slot. */
    final ClientProcess[] processes;

    private long lastCallId;

    World(SimConfig config, SplittableRandom random) {
        this.config = config;
        this.random = random;
        this.network = new Network(random, config);
        for (int i = 0; i < config.nodes(); i++) {
            nodes.add(new Node(this, i));
        }
        this.checker = new Checker(this);
        this.cluster = new Cluster(this);
        this.watch = new WatchFeeds(this);
        this.processes = new ClientProcess[config.clients()];
    }

    long nextCallId() {
        return ++lastCallId;
    }

    /** A semaphore: every acquire of it names {@link SimConfig#permits()}. */
    static final String SEMAPHORE = "sem";

    /** A lock taken shared or exclusive, whose exclusive holders may downgrade to shared. */
    static final String SHARED = "rw";

    static String lockName(int i) {
        return "lock" + i;
    }

    /** Every name the workload acquires: the plain locks, then the semaphore and the shared lock. */
    static String[] allLocks(SimConfig config) {
        String[] names = new String[config.locks() + 2];
        for (int i = 0; i < config.locks(); i++) {
            names[i] = lockName(i);
        }
        names[config.locks()] = SEMAPHORE;
        names[config.locks() + 1] = SHARED;
        return names;
    }
}
