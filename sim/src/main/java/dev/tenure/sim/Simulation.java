package dev.tenure.sim;

import java.util.List;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Runs one seed: draws the run's shape and fault schedule from it, starts the client processes,
 * and runs the event loop to the end of the run or the first violation. Everything a run does
 * follows from the seed (one {@link SplittableRandom}, simulated time only, one thread), so a
 * failing seed replays exactly.
 */
final class Simulation {
    private Simulation() {}

    /** What one run did, and the first thing that went wrong (null: nothing). */
    record Outcome(
            long seed,
            String replay,
            String config,
            List<String> faults,
            List<Fault.Kind> faultKinds,
            @Nullable String failure,
            List<String> traceTail,
            long traceHash,
            long traceLines,
            long events,
            long steps,
            long grants,
            long writesAccepted,
            long writesRejected,
            long ephemeralKeysGone,
            long semaphoreSharedSteps,
            long sharedLockSharedSteps,
            long downgrades,
            long watchChanges,
            long watchResumes,
            long watchCompacted,
            long callsAtLeader,
            long callsElsewhere,
            long leaderQuestions) {

        boolean passed() {
            return failure == null;
        }

        String report() {
            StringBuilder b = new StringBuilder();
            b.append("seed ").append(seed).append(" (replay: ").append(replay).append(")\n");
            b.append("failure: ").append(failure).append('\n');
            b.append("config: ").append(config).append('\n');
            b.append("faults:\n");
            faults.forEach(f -> b.append("  ").append(f).append('\n'));
            b.append("stats: ")
                    .append(events)
                    .append(" events, ")
                    .append(steps)
                    .append(" core steps, ")
                    .append(grants)
                    .append(" grants, ")
                    .append(writesAccepted)
                    .append(" fenced writes accepted, ")
                    .append(writesRejected)
                    .append(" rejected, ")
                    .append(ephemeralKeysGone)
                    .append(" ephemeral keys seen gone with their session, ")
                    .append(semaphoreSharedSteps)
                    .append(" steps with several semaphore leases, ")
                    .append(sharedLockSharedSteps)
                    .append(" with several shared leases, ")
                    .append(downgrades)
                    .append(" downgrades, ")
                    .append(watchChanges)
                    .append(" watched changes checked, ")
                    .append(watchResumes)
                    .append(" watch resumes, ")
                    .append(watchCompacted)
                    .append(" watches ended as compacted, ")
                    .append(callsAtLeader)
                    .append(" unary calls at the leader's node, ")
                    .append(callsElsewhere)
                    .append(" at another, ")
                    .append(leaderQuestions)
                    .append(" leader questions answered\n");
            b.append("trace (last ")
                    .append(traceTail.size())
                    .append(" of ")
                    .append(traceLines)
                    .append(" lines):\n");
            traceTail.forEach(l -> b.append("  ").append(l).append('\n'));
            return b.toString();
        }
    }

    static Outcome run(long seed) {
        return run(seed, SimConfig.Options.DEFAULT);
    }

    static Outcome run(long seed, SimConfig.Options options) {
        SplittableRandom random = new SplittableRandom(seed);
        SimConfig config = SimConfig.draw(seed, random, options);
        List<Fault> faults = Fault.draw(config, random);
        World world = new World(config, random);
        String failure = null;
        try {
            for (int slot = 0; slot < config.clients(); slot++) {
                ClientProcess p = new ClientProcess(world, slot, 0);
                world.processes[slot] = p;
                world.loop.at(random.nextLong(config.ttlNanos() / 2), p, p.app::start);
            }
            new Nemesis(world).schedule(faults);
            world.watch.start();
            world.loop.run(
                    config.durationNanos(),
                    world.checker::checkClients,
                    () -> world.checker.violation() != null || world.watch.violation() != null);
            failure = world.checker.violation() != null ? world.checker.violation() : world.watch.violation();
            if (failure == null && (world.checker.grants == 0 || world.checker.writesAccepted == 0)) {
                failure = "liveness: " + world.checker.grants + " grants and " + world.checker.writesAccepted
                        + " accepted writes in the whole run";
            }
        } catch (RuntimeException | Error e) {
            failure = "exception: " + e + at(e);
            world.trace.add("EXCEPTION " + e);
        }
        Checker c = world.checker;
        return new Outcome(
                seed,
                config.replayFlags(),
                config.summary(),
                faults.stream().map(Fault::describe).toList(),
                faults.stream().map(Fault::kind).toList(),
                failure,
                world.trace.tail(),
                world.trace.hash(),
                world.trace.lines(),
                world.loop.executed(),
                c.steps,
                c.grants,
                c.writesAccepted,
                c.writesRejected,
                c.ephemeralKeysGone,
                c.semaphoreSharedSteps,
                c.sharedLockSharedSteps,
                c.downgrades,
                world.watch.changesReceived,
                world.watch.resumes,
                world.watch.compacted,
                c.callsAtLeader,
                c.callsElsewhere,
                c.leaderQuestions);
    }

    private static String at(Throwable e) {
        StringBuilder b = new StringBuilder();
        StackTraceElement[] st = e.getStackTrace();
        for (int i = 0; i < Math.min(12, st.length); i++) {
            b.append("\n    at ").append(st[i]);
        }
        return b.toString();
    }
}
