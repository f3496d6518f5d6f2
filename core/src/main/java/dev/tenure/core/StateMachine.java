package dev.tenure.core;

import dev.tenure.core.DeadlineIndex.Deadline;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Tenure's deterministic state machine: sessions, locks with one lease and a FIFO queue of
 * waiters, fencing tokens, request-id dedup, the fenced KV and ownership history.
 *
 * <p>Determinism: it never reads a clock. Time is the timestamp the log gives each command;
 * state-machine time is {@code max(previous, timestamp)}. It iterates only in defined order and
 * its snapshot is an explicit binary format. Invariants are checked after every apply and on
 * snapshot load; a violation throws {@link InvariantViolation}, which must stop the replica.
 *
 * <p>Invariant cost: after each step only the sessions, locks and keys the step touched are
 * checked, plus global counts (see {@link Invariants}); this keeps a step's cost proportional to
 * its work. {@link #setFullInvariantChecks(boolean)} checks the whole state after every step
 * (tests and simulations turn it on). Restore and a new term always check everything.
 *
 * <p>This class only orders the work: fire what is due, dispatch the command, check. The rules
 * live in {@link SessionCommands}, {@link LockCommands}, {@link KvCommands}, {@link Reads} and
 * the shared transitions in {@link LeaseLifecycle}.
 *
 * <p>Not thread-safe: one thread applies the log.
 */
public final class StateMachine {
    private final State state;
    private final SessionCommands sessionCommands;
    private final LockCommands lockCommands;
    private final ElectionCommands electionCommands;
    private final KvCommands kvCommands;
    private final Reads reads;
    private final LimitsCommands limitsCommands;
    private final Revocations revocations;
    private final LeaseLifecycle lifecycle;
    private final Invariants invariants;
    private boolean fullInvariantChecks;

    public StateMachine(Limits limits) {
        this(new State(Objects.requireNonNull(limits, "limits"), 0, 0, 0));
    }

    private StateMachine(State state) {
        this.state = state;
        this.lifecycle = new LeaseLifecycle(state);
        this.revocations = new Revocations(state, lifecycle);
        this.sessionCommands = new SessionCommands(state, lifecycle, revocations);
        this.lockCommands = new LockCommands(state, lifecycle);
        this.electionCommands = new ElectionCommands(state);
        this.kvCommands = new KvCommands(state, lifecycle);
        this.reads = new Reads(state);
        this.invariants = new Invariants(state);
        this.limitsCommands = new LimitsCommands(state, invariants);
    }

    /** Checks the whole state after every step instead of only what the step touched. */
    public void setFullInvariantChecks(boolean on) {
        this.fullInvariantChecks = on;
    }

    /** Advances time to {@code timestampMs}, fires every deadline due by then, then applies {@code command}. */
    public Result apply(long timestampMs, Command command) {
        Objects.requireNonNull(command, "command");
        moveTimeAndFire(timestampMs);
        Result result = dispatch(command);
        afterStep();
        return result;
    }

    /**
     * Answers a read (a lock's status, a KV get, a page of the listing) from the state as the last
     * step left it: time does not move, no deadline fires, nothing changes. It is what {@link
     * #apply} would answer for the same read at the timestamp of the last step, so a host that
     * serves it at a log position it has proven current (see the server's read index) answers as
     * a read through the log would have there.
     *
     * @throws IllegalArgumentException if {@code read} is not one of those reads
     */
    public Result read(Command read) {
        Objects.requireNonNull(read, "read");
        if (read instanceof Command.Status x) return reads.status(x);
        if (read instanceof Command.Get x) return kvCommands.get(x);
        if (read instanceof Command.ListLocks x) return LockListing.page(state, x);
        throw new IllegalArgumentException(
                "not a read served outside the log: " + read.getClass().getSimpleName());
    }

    /** Advances time to {@code timestampMs} and fires every deadline due by then (session expiry, wait timeouts). */
    public void advance(long timestampMs) {
        moveTimeAndFire(timestampMs);
        afterStep();
    }

    /** The earliest pending deadline, or {@link Long#MAX_VALUE} if none; the host sets one timer for it. */
    public long nextDeadlineMs() {
        return state.deadlines.nextMs();
    }

    /**
     * A new leadership term began at {@code timestampMs}: every session deadline restarts at
     * {@code max(deadline, timestampMs + ttl)}, so a leader whose clock runs ahead never expires a
     * session before its client's horizon. Lease deadlines move the same way: a manual lease's to
     * at least {@code timestampMs + leaseTtl}, a maxHold by as much as the clock jumped, so the time
     * the holder was told it has left is still there in the new leader's clock.
     *
     * <p>Deadlines move before time does and nothing fires here: a session whose old deadline
     * passed while no leader could accept its keepalives gets a full TTL to renew with the new
     * leader. Wait deadlines are left as they are: a wait timing out early costs liveness only.
     */
    public void onNewTerm(long timestampMs) {
        sessionCommands.newTerm(timestampMs);
        newTermForLeases(timestampMs);
        state.nowMs = Math.max(state.nowMs, timestampMs);
        state.clearTouched();
        invariants.checkAll();
    }

    private void newTermForLeases(long timestampMs) {
        long jumpMs = Math.max(0, timestampMs - state.nowMs);
        for (LockRecord lock : state.locks.all()) {
            if (lock.lease != null && lock.leaseEndsAtMs() != LockRecord.NONE) {
                long renew = lock.lease.policy().manualRenew()
                        ? State.saturatingAdd(timestampMs, lock.lease.policy().leaseTtlMs())
                        : LockRecord.NONE;
                lifecycle.moveLeaseEnd(lock, renew, State.saturatingAdd(lock.maxHoldAtMs, jumpMs));
            }
        }
    }

    /** Moves the events produced since the last call into {@code sink}, in the order they happened. */
    public void drainEvents(List<Event> sink) {
        sink.addAll(state.events);
        state.events.clear();
    }

    /**
     * From now on, records each step's {@link Change}s for {@link #drainChanges}: a host that
     * serves watchers asks for it; nothing else keeps them. The revision counts on either way.
     */
    public void trackChanges() {
        if (state.changes == null) {
            state.changes = new java.util.ArrayList<>();
        }
    }

    /** Moves the changes recorded since the last call into {@code sink}, in revision order. */
    public void drainChanges(List<Change> sink) {
        if (state.changes != null) {
            sink.addAll(state.changes);
            state.changes.clear();
        }
    }

    /** The revision of the last change applied (0: none since the counter began). */
    public long revision() {
        return state.revision;
    }

    /**
     * What a watcher of {@code name} (or of every name starting with it, when {@code prefix}) sees
     * now, as changes at the current {@link #revision()}: each lease as GRANTED, each waiter as
     * QUEUED (queue order), each key as KV_PUT; locks before keys, each in name order. A read: it
     * changes nothing, and the changes after it are exactly those with a higher revision.
     */
    public void current(String name, boolean prefix, Consumer<Change> sink) {
        WatchedState.of(state, name, prefix, sink);
    }

    /**
     * From now on, remembers which KV keys each step puts or deletes, for {@link #drainChangedKeys}:
     * a host that keeps a view of the KV for other threads asks for it; nothing else pays for it.
     */
    public void trackChangedKeys() {
        if (state.changedKeys == null) {
            state.changedKeys = new java.util.TreeSet<>();
        }
    }

    /** Hands {@code sink} each key put or deleted since the last call, ascending, and forgets them. */
    public void drainChangedKeys(Consumer<String> sink) {
        if (state.changedKeys != null) {
            state.changedKeys.forEach(sink);
            state.changedKeys.clear();
        }
    }

    /** Every key the KV holds, ascending. */
    public void forEachKey(Consumer<String> sink) {
        for (FencedKv.Entry e : state.kv.all()) {
            sink.accept(e.key());
        }
    }

    /** What {@code key} counts against the KV's byte budgets and whose quota it counts against; null if absent. */
    public @Nullable KvCharge kvCharge(String key) {
        FencedKv.Entry e = state.kv.get(key);
        return e == null ? null : new KvCharge(FencedKv.bytes(e), e.principal());
    }

    /** The keys and bytes whose last write was {@code principal}'s, as its quota counts them. */
    public KvCharge.Held kvHeldBy(String principal) {
        FencedKv.Usage u = state.kv.usage(principal);
        return new KvCharge.Held(u.keys(), u.bytes());
    }

    /**
     * The quotas of named principals in force (the others have {@code limits().principal()}),
     * read-only. A {@link Command.SetLimits} replaces them whole, with new {@link #limits()}, and
     * nothing changes them in place: another thread may read the map it was handed.
     */
    public java.util.SortedMap<String, PrincipalLimits> quotas() {
        return java.util.Collections.unmodifiableSortedMap(state.quotas);
    }

    public long nowMs() {
        return state.nowMs;
    }

    public long lastToken() {
        return state.lastToken;
    }

    /**
     * The limits in force: the ones the log last set ({@link Command.SetLimits}), or, while it has
     * set none, the ones this machine was made with.
     */
    public Limits limits() {
        return state.limits;
    }

    /** Whether the log (or the snapshot restored) has set the limits in force. */
    public boolean limitsRecorded() {
        return state.limitsRecorded;
    }

    /** How much of each limit the state uses now. */
    public Usage usage() {
        return new Usage(
                state.sessions.size(),
                state.locks.busyCount(),
                state.locks.idleCount(),
                state.waiters,
                state.kv.size(),
                state.kv.bytes(),
                state.checkpointBytes);
    }

    /**
     * The whole state in the versioned binary snapshot format. Undrained events are output, not
     * state, and are not included: the host drains them after each step, before it snapshots.
     */
    public byte[] snapshot() {
        return SnapshotCodec.encode(state);
    }

    /** {@link #snapshot()} as an older {@code version} it can be written as (for tests of old snapshots). */
    byte[] snapshot(int version) {
        return SnapshotCodec.encode(state, version);
    }

    /**
     * Rebuilds a state machine from {@link #snapshot()} output and checks every invariant. The
     * limits the snapshot records are in force; {@code limits} only where it records none (one
     * written before limits travelled through the log).
     */
    public static StateMachine restore(byte[] snapshot, Limits limits) {
        StateMachine machine =
                new StateMachine(SnapshotCodec.decode(snapshot, Objects.requireNonNull(limits, "limits")));
        machine.checkInvariants();
        return machine;
    }

    /**
     * Moves the token counter up to {@code floor}, so that the next grant's token is {@code floor +
     * 1}: how a restored state starts above every token the cluster it was backed up from could
     * issue (see {@link TokenEpoch#floorAfter}). Only a state no log has been applied to yet is
     * given a floor, by the restore that prepares it.
     *
     * @throws IllegalArgumentException if {@code floor} is below the counter (tokens never go back)
     */
    public void raiseTokenFloor(long floor) {
        if (floor < state.lastToken) {
            throw new IllegalArgumentException(
                    "token floor " + floor + " is below the last token issued, " + state.lastToken);
        }
        state.lastToken = floor;
        checkInvariants();
    }

    /** Checks every invariant over the whole state; throws {@link InvariantViolation}. */
    public void checkInvariants() {
        invariants.checkAll();
    }

    /**
     * Fires due deadlines one at a time, earliest first. Each firing removes its own entry
     * (expiry removes the session, a timeout removes the waiter), and a grant it causes only
     * adds deadlines, so the loop ends; a grant made here at a time when the new holder's own
     * session is also overdue is followed by that session's expiry in the same loop.
     */
    private void moveTimeAndFire(long timestampMs) {
        state.nowMs = Math.max(state.nowMs, timestampMs);
        Deadline due;
        while ((due = state.deadlines.firstDueBy(state.nowMs)) != null) {
            switch (due.kind()) {
                case DeadlineIndex.SESSION_EXPIRY -> sessionCommands.expire(due.sessionId());
                case DeadlineIndex.LEASE_END -> lifecycle.leaseDeadline(due.lock());
                case DeadlineIndex.WAIT_TIMEOUT -> lockCommands.timeoutWait(due.sessionId(), due.requestId());
                default -> lifecycle.delayEnded(due.lock());
            }
            if (due.equals(state.deadlines.firstDueBy(state.nowMs))) {
                throw new InvariantViolation("deadline fired but still pending: " + due);
            }
        }
    }

    private Result dispatch(Command command) {
        SecretHash shown = SecretHash.NONE;
        Command c = command;
        if (c instanceof Command.WithSecret w) {
            shown = w.secretHash();
            c = w.command();
        }
        Result denied = sessionCommands.denied(c, shown);
        if (denied != null) {
            return denied;
        }
        if (c instanceof Command.Acquire x) return lockCommands.acquire(x);
        if (c instanceof Command.Release x) return lockCommands.release(x);
        if (c instanceof Command.CancelWait x) return lockCommands.cancelWait(x);
        if (c instanceof Command.RenewLease x) return lockCommands.renewLease(x);
        if (c instanceof Command.Downgrade x) return lockCommands.downgrade(x);
        if (c instanceof Command.WriteCheckpoint x) return lockCommands.checkpoint(x);
        if (c instanceof Command.Proclaim x) return electionCommands.proclaim(x);
        if (c instanceof Command.KeepAlive x) return sessionCommands.keepAlive(x);
        if (c instanceof Command.OpenSession x) return sessionCommands.open(x);
        if (c instanceof Command.CloseSession x) return sessionCommands.close(x);
        if (c instanceof Command.AbandonOpen x) return sessionCommands.abandonOpen(x);
        if (c instanceof Command.ResumeSession x) return sessionCommands.resume(x);
        if (c instanceof Command.RevokePrincipal x) return revocations.revoke(x);
        if (c instanceof Command.ReinstatePrincipal x) return revocations.reinstate(x);
        if (c instanceof Command.Put x) return kvCommands.put(x);
        if (c instanceof Command.Delete x) return kvCommands.delete(x);
        if (c instanceof Command.Get x) return kvCommands.get(x);
        if (c instanceof Command.Status x) return reads.status(x);
        if (c instanceof Command.Stats x) return reads.stats(x);
        if (c instanceof Command.ListLocks x) return LockListing.page(state, x);
        if (c instanceof Command.SetLimits x) return limitsCommands.set(x);
        throw new IllegalArgumentException("unknown command " + c);
    }

    private void afterStep() {
        if (fullInvariantChecks) {
            invariants.checkAll();
        } else {
            invariants.checkTouched();
        }
        state.clearTouched();
    }
}
