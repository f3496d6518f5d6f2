package dev.tenure.sim;

import dev.tenure.client.Lease;
import dev.tenure.core.Command;
import dev.tenure.core.Event;
import dev.tenure.core.Grant;
import dev.tenure.core.Result;
import dev.tenure.core.StateMachine;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The properties every run must keep, checked as it goes (the core checks its own invariants after
 * every step and throws; the run fails on that too):
 *
 * <ul>
 *   <li><b>holder</b>: at no simulated instant does a live client act on a lease that is still
 *       valid by its own horizon ({@link Lease#isValid()}) while the server's current lease of
 *       that lock is another one (another session's, or none: then the server ended it first).
 *       Checked after every event, against the server's state after its last step.
 *   <li><b>tokens</b>: every token is granted once (a replayed grant repeats the same lock and
 *       session), and grants of a lock, and of all locks, carry strictly increasing tokens.
 *   <li><b>fencing</b>: every fenced write the core accepted carries its lock's current token, and
 *       the tokens accepted per key never go down.
 *   <li><b>semaphore</b>: at no instant do more live clients act on leases of the semaphore that
 *       are valid by their own horizons than its permits.
 *   <li><b>shared</b>: at no instant does a live client act as the exclusive holder of the shared
 *       lock by its own horizon while another acts on a valid lease of it (shared or not).
 *   <li><b>listing</b>: the lock listing shows every lock with the very leases its status shows.
 *   <li><b>watch</b>: every watcher receives its names' changes exactly as the log applied them,
 *       across resumes on other nodes (checked by {@link WatchFeeds}).
 * </ul>
 *
 * The holder property already asks that each lease a client acts on be one of the server's current
 * leases of its lock; the semaphore and shared properties count the clients themselves, so that
 * they hold even if the server's own count were wrong.
 */
final class Checker {
    private final World world;
    private final String[] locks;
    /** The server's current lease per lock index: token (0: free) and session, after the last step. */
    private final long[] holderToken;

    private final long[] holderSession;
    /** Every current lease of each lock, token to session, after the last step. */
    private final TreeMap<Long, Long>[] leases;

    private final TreeMap<Long, String> grantedTo = new TreeMap<>();
    private final TreeMap<String, Long> lastGrantByLock = new TreeMap<>();
    private final TreeMap<String, Long> lastAcceptedByKey = new TreeMap<>();
    /** The keys each session wrote as ephemeral, to look at once it ends. */
    private final TreeMap<Long, TreeSet<String>> ephemeralBySession = new TreeMap<>();

    private long lastGrant;
    private @Nullable String violation;

    long steps;
    long grants;
    long writesAccepted;
    long writesRejected;
    long ephemeralKeysGone;
    /** Steps after which the semaphore had several leases at once, or the shared lock several shared. */
    long semaphoreSharedSteps;

    long sharedLockSharedSteps;
    long downgrades;
    /** Unary calls (not {@code Leader}) that reached the node leading at the time, and the others. */
    long callsAtLeader;

    long callsElsewhere;
    /** {@code Leader} questions the nodes answered. */
    long leaderQuestions;

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of one generic type, filled just below
    Checker(World world) {
        this.world = world;
        this.locks = World.allLocks(world.config);
        this.holderToken = new long[locks.length];
        this.holderSession = new long[locks.length];
        this.leases = new TreeMap[locks.length];
        for (int i = 0; i < locks.length; i++) {
            leases[i] = new TreeMap<>();
        }
    }

    /** The first violation, or null. */
    @Nullable
    String violation() {
        return violation;
    }

    /** After every core step: {@code command} is null for a timer or a new term. */
    /** {@code command} and {@code result} are null for a step that only fired deadlines. */
    void afterStep(@Nullable Command command, @Nullable Result result, List<Event> events) {
        steps++;
        if (result instanceof Result.Granted g) {
            granted(g.grant());
        }
        for (Event e : events) {
            if (e instanceof Event.WaitResolved w && w.result() instanceof Result.Granted g) {
                granted(g.grant());
            }
        }
        readHolders();
        // A session's requests reach the log wrapped with its secret.
        Command inner = command instanceof Command.WithSecret w ? w.command() : command;
        if (inner instanceof Command.Put p && p.ephemeral() && result instanceof Result.Written) {
            ephemeralBySession
                    .computeIfAbsent(p.sessionId(), id -> new TreeSet<>())
                    .add(p.key());
        }
        for (Event e : events) {
            if (e instanceof Event.SessionEnded ended) {
                ephemeralKeysGone(ended.sessionId());
            }
        }
        if (inner instanceof Command.Downgrade && result instanceof Result.Ok) {
            downgrades++;
        }
        if (command instanceof Command.Put p) {
            String fenceLock = p.fenceLock();
            if (fenceLock != null) {
                fencedWrite(p, fenceLock, Objects.requireNonNull(result, "a command's step has its result"));
            }
        }
    }

    private void granted(Grant g) {
        String to = g.lock() + " to s" + g.sessionId();
        String before = grantedTo.get(g.token());
        if (before != null) {
            if (!before.equals(to)) {
                fail("tokens: t" + g.token() + " granted twice: " + before + ", then " + to);
            }
            return; // the same grant again: a retried acquire, answered from the request cache
        }
        Long lastOfLock = lastGrantByLock.get(g.lock());
        if (g.token() <= lastGrant || (lastOfLock != null && g.token() <= lastOfLock)) {
            fail("tokens: t" + g.token() + " (" + to + ") is not above the last grant t" + lastGrant
                    + " (of this lock: t" + lastOfLock + ")");
        }
        grantedTo.put(g.token(), to);
        lastGrantByLock.put(g.lock(), g.token());
        lastGrant = Math.max(lastGrant, g.token());
        grants++;
    }

    /** The holder of each lock as the server sees it now, read through the log as a client would. */
    private void readHolders() {
        StateMachine machine = world.cluster.machine();
        for (int i = 0; i < locks.length; i++) {
            Result.LockView view = (Result.LockView) machine.apply(machine.nowMs(), new Command.Status(locks[i]));
            holderToken[i] = view.holder() == null ? 0 : view.holder().token();
            holderSession[i] = view.holder() == null ? 0 : view.holder().sessionId();
            leases[i].clear();
            for (Result.Holder h : view.holders()) {
                leases[i].put(h.token(), h.sessionId());
            }
        }
        int sem = index(World.SEMAPHORE);
        semaphoreSharedSteps += leases[sem].size() > 1 ? 1 : 0;
        sharedLockSharedSteps += leases[index(World.SHARED)].size() > 1 ? 1 : 0;
        checkListing(machine);
    }

    /**
     * The lock listing, paged one lock at a time from each last name, shows every held lock with
     * the holder its status read shows, and no lock as held that status shows free.
     */
    private void checkListing(StateMachine machine) {
        TreeMap<String, List<Long>> listed = new TreeMap<>();
        String after = "";
        while (true) {
            var page = (Result.LockList) machine.apply(machine.nowMs(), new Command.ListLocks("", after, 1, 1));
            for (Result.LockEntry e : page.locks()) {
                List<Long> tokens =
                        e.holders().stream().map(Result.Holder::token).toList();
                if (listed.put(e.lock(), tokens) != null) {
                    fail("listing: " + e.lock() + " listed twice");
                }
                long first = e.holder() == null ? 0 : e.holder().token();
                if (first != (tokens.isEmpty() ? 0 : tokens.get(0))) {
                    fail("listing: " + e.lock() + " lists holder t" + first + " but holders " + tokens);
                }
                after = e.lock();
            }
            if (!page.more()) {
                break;
            }
        }
        for (int i = 0; i < locks.length; i++) {
            List<Long> tokens = listed.getOrDefault(locks[i], List.of());
            // Both oldest first: the listing's order is the status's order.
            List<Long> status = List.copyOf(leases[i].keySet());
            if (!new TreeSet<>(tokens).equals(new TreeSet<>(status)) || tokens.size() != status.size()) {
                fail("listing: " + locks[i] + " listed with " + tokens + ", its status shows " + status);
            }
        }
    }

    /**
     * Ephemeral keys are gone once their session ends: in the very step that ended it, no key the
     * session wrote as ephemeral is still held by it (read through the log, as a client would).
     */
    private void ephemeralKeysGone(long sessionId) {
        TreeSet<String> keys = ephemeralBySession.remove(sessionId);
        if (keys == null) {
            return;
        }
        StateMachine machine = world.cluster.machine();
        for (String key : keys) {
            Result r = machine.apply(machine.nowMs(), new Command.Get(key));
            if (r instanceof Result.KvValue v && v.ephemeralSessionId() == sessionId) {
                fail("ephemeral: key " + key + " of s" + sessionId + " outlives its session");
            }
            ephemeralKeysGone++;
        }
    }

    private void fencedWrite(Command.Put p, String fenceLock, Result result) {
        if (!(result instanceof Result.Written)) {
            writesRejected++;
            return;
        }
        writesAccepted++;
        long current = holderToken[index(fenceLock)];
        if (p.fenceToken() != current) {
            fail("fencing: write to " + p.key() + " with t" + p.fenceToken() + " accepted while the current lease of "
                    + fenceLock + " is t" + current);
        }
        Long last = lastAcceptedByKey.get(p.key());
        if (last != null && p.fenceToken() < last) {
            fail("fencing: write to " + p.key() + " with t" + p.fenceToken() + " accepted after one with t" + last);
        }
        lastAcceptedByKey.put(p.key(), p.fenceToken());
    }

    /** After every event: no live client may act on a valid lease the server no longer counts as current. */
    void checkClients() {
        TreeMap<String, List<String>> acting = new TreeMap<>();
        boolean exclusiveOnShared = false;
        for (ClientProcess p : world.processes) {
            if (p == null || p.crashed()) {
                continue;
            }
            Lease lease = p.app.held();
            if (lease == null || !lease.isValid()) {
                continue;
            }
            int i = index(lease.lock());
            if (!leases[i].containsKey(lease.token())) {
                String server = leases[i].isEmpty()
                        ? "the server has ended it (the lock is free)"
                        : "the server's current leases are " + describe(leases[i]);
                fail("holder: " + p.name() + " (session s" + lease.sessionId() + ") holds " + lease.lock() + " t"
                        + lease.token() + " with " + lease.remaining().toMillis() + "ms left by its horizon, but "
                        + server);
            }
            boolean shared = p.app.heldShared();
            exclusiveOnShared |= lease.lock().equals(World.SHARED) && !shared;
            acting.computeIfAbsent(lease.lock(), l -> new java.util.ArrayList<>())
                    .add(p.name() + " t" + lease.token() + (shared ? " shared" : "") + " ("
                            + lease.remaining().toMillis() + "ms left)");
        }
        List<String> onSemaphore = acting.getOrDefault(World.SEMAPHORE, List.of());
        if (onSemaphore.size() > world.config.permits()) {
            fail("semaphore: " + onSemaphore.size() + " clients act on " + World.SEMAPHORE + " (permits "
                    + world.config.permits() + ") at once by their own horizons: " + onSemaphore);
        }
        List<String> onShared = acting.getOrDefault(World.SHARED, List.of());
        if (exclusiveOnShared && onShared.size() > 1) {
            fail("shared: an exclusive holder of " + World.SHARED + " acts beside others by their own horizons: "
                    + onShared);
        }
    }

    private static String describe(java.util.Map<Long, Long> leases) {
        StringBuilder b = new StringBuilder();
        leases.forEach((token, session) -> b.append(b.length() == 0 ? "" : ", ")
                .append('t')
                .append(token)
                .append(" of s")
                .append(session));
        return b.toString();
    }

    private int index(String lock) {
        for (int i = 0; i < locks.length; i++) {
            if (locks[i].equals(lock)) {
                return i;
            }
        }
        throw new IllegalArgumentException("unknown lock " + lock);
    }

    private void fail(String what) {
        if (violation == null) {
            violation = what;
            world.trace.add("VIOLATION " + what);
        }
    }
}
