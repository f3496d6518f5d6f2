package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CancelWait;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.ResumeSession;
import dev.tenure.core.Command.Stats;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.Rejected;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Model-based test: seeded random interleavings of every command, applied to the state machine
 * and to {@link ReferenceModel}; after every step the results, events, clock, token counter and
 * next deadline must agree and every invariant must hold. Midway the machine is snapshotted,
 * restored, and the run continues on the restored copy, next to a twin that is never restored
 * (and checks only what each step touched) and must end byte-identical.
 *
 * <p>Each run is {@value #OPS_PER_RUN} operations drawn from a {@link SplittableRandom} seeded
 * with the run's number, each operation kind by its weight; runs take seeds 1 to
 * {@value #DEFAULT_RUNS}. A failing run is shrunk greedily (drop halves, then ever smaller chunks,
 * down to single operations, while it still fails) and reported with its seed, the shrunk list
 * and the failure the shrunk list gives. Across all seeds, each outcome in a fixed list (every
 * result and event kind, every rejection code, every way a tenure ends) must have been reached, so
 * a generator that stops reaching one cannot let the check pass vacuously.
 *
 * <p>Semaphores and shared leases run on the same names as plain locks: a semaphore acquire
 * mostly names the same permits for the same name (so semaphores fill and queue) and now and
 * then another (refused while the name is busy); shared acquires, downgrades of a session's
 * exclusive lease, and releases, renewals and fenced writes under a session's own (not the
 * first) lease are drawn like the rest. The model's list of situations reached (a shared acquire
 * held back behind an earlier waiter, a semaphore full, an exclusive waiter admitted after shared
 * leases, a refused upgrade, ...) joins the coverage list.
 *
 * <p>{@code mvn -pl core test -Dtest=ModelCheckTest -Dtenure.model.seed=N} replays seed N alone
 * (without the coverage check); {@code -Dtenure.model.runs=N} runs seeds 1 to N instead.
 *
 * <p>A second check feeds the recorded inputs of a few fixed seeds to two fresh machines, whose
 * snapshots must stay byte-identical: apply depends on nothing but its inputs.
 */
class ModelCheckTest {
    static final int DEFAULT_RUNS = 1_000;
    static final int OPS_PER_RUN = 200;

    /** Small limits, so that every bound, eviction and trim is reached often. */
    static final Limits LIMITS = new Limits(
            100, // sessionTtlMsMin
            2_000, // sessionTtlMsMax
            4, // lockNameBytesMax
            4, // keyBytesMax
            3, // valueBytesMax
            4, // clientNameBytesMax
            4, // sessionsMax
            3, // leasesPerSessionMax
            1_000, // locksMax
            1_000, // waitersMax
            2, // waitersPerLockMax
            3, // kvKeysMax
            1L << 30, // kvBytesMax
            4, // requestIdCacheMax
            2, // historyPerLockMax
            1, // idleLocksMax
            300, // lockDelayMsMax
            1_000, // maxHoldMsMax
            3, // checkpointBytesMax
            1L << 30, // checkpointTotalBytesMax
            2, // ephemeralKeysPerSessionMax: small, so the model reaches it
            3, // permitsMax: small, so the model reaches it
            1_024, // electionValueBytesMax
            1L << 20, // electionValueTotalBytesMax
            0, // readLeaseMs
            PrincipalLimits.defaults());

    static final long[] LOCK_DELAYS = {0, 0, 50, 300, 400}; // 400: over the limit
    static final long[] MAX_HOLDS = {0, 0, 150, 600, 50}; // 50: under sessionTtlMsMin
    static final long[] LEASE_TTLS = {0, 0, 100, 400, 3_000}; // 3000: over sessionTtlMsMax

    static final String[] LOCKS = {"a", "b", "c"};
    static final String[] KEYS = {"k1", "k2", "k3"};
    static final long[] TTLS = {100, 400, 1_000, 2_000};

    /** Operation kinds with their weights. */
    enum Kind {
        OPEN(6),
        KEEPALIVE(9),
        ADVANCE(10),
        ACQUIRE_NOW(8),
        ACQUIRE_BOUNDED(8),
        ACQUIRE_FOREVER(6),
        RELEASE_OWN(8),
        RELEASE_STALE(4),
        RELEASE_FORCED(2),
        CANCEL(5),
        CLOSE(2),
        DISCONNECT(2),
        PUT_FENCED(5),
        PUT_STALE(3),
        PUT_UNFENCED(3),
        DELETE(2),
        GET(3),
        STATUS(3),
        STATS(1),
        NEW_TERM(1),
        ACQUIRE_POLICY(10),
        RENEW_LEASE(6),
        CHECKPOINT(5),
        CHECKPOINT_STALE(2),
        GIVE_UP(2),
        RETRY(6),
        MALFORMED(2),
        RESUME(3),
        PUT_IF_VERSION(3),
        PUT_EPHEMERAL(3),
        DELETE_IF_VERSION(2),
        ACQUIRE_SHARED(8),
        ACQUIRE_PERMITS(8),
        DOWNGRADE(4);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    record Op(Kind kind, int a, int b, int c, int d) {}

    /** One input to the machine, recorded so that another machine can be fed the same sequence. */
    record Step(String what, long ts, Command command) {}

    static List<Op> generate(long seed, int length) {
        SplittableRandom r = new SplittableRandom(seed);
        int total = Arrays.stream(Kind.values()).mapToInt(k -> k.weight).sum();
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < length; i++) {
            int pick = r.nextInt(total);
            Kind kind = null;
            for (Kind k : Kind.values()) {
                if (pick < k.weight) {
                    kind = k;
                    break;
                }
                pick -= k.weight;
            }
            ops.add(new Op(kind, r.nextInt(1_000), r.nextInt(1_000), r.nextInt(1_000), r.nextInt(1_000)));
        }
        return ops;
    }

    @Test
    void machineMatchesTheReferenceModel() {
        String fixed = System.getProperty("tenure.model.seed");
        long first = fixed != null ? Long.parseLong(fixed) : 1;
        int runs = fixed != null ? 1 : Integer.getInteger("tenure.model.runs", DEFAULT_RUNS);
        TreeMap<String, Integer> seen = new TreeMap<>();
        for (long seed = first; seed < first + runs; seed++) {
            List<Op> ops = generate(seed, OPS_PER_RUN);
            Run run = new Run(ops, true);
            String failure = run.execute();
            run.seen.forEach((k, v) -> seen.merge(k, v, Integer::sum));
            run.model.reached.forEach((k, v) -> seen.merge(k, v, Integer::sum));
            if (failure != null) {
                List<Op> small = shrink(ops);
                fail("seed " + seed + " (replay: -Dtenure.model.seed=" + seed + "): " + failure
                        + "\nshrunk to " + small.size() + " ops: " + small
                        + "\nwhich fails with: " + new Run(small, true).execute());
            }
        }
        if (fixed == null) {
            // A generator that never reaches an outcome would let the model check pass vacuously.
            assertThat(seen)
                    .as("outcomes reached")
                    .containsKeys(
                            "Granted.after.NONE",
                            "Granted.after.RELEASED",
                            "Granted.after.EXPIRED",
                            "Granted.after.DISCONNECTED",
                            "Granted.after.REVOKED",
                            "Granted.withCheckpoint",
                            "LeaseRenewed",
                            "LockView.delayed",
                            "LockView.staleWrites",
                            "Rejected.HELD.delayed",
                            "LeaseEnded.REVOKED",
                            "Queued",
                            "Ok",
                            "KvValue",
                            "LockView",
                            "Stats",
                            "SessionOpened",
                            "SessionResumed",
                            "KeepAliveResult",
                            "Rejected.HELD",
                            "Rejected.NOT_OWNER",
                            "Rejected.STALE_TOKEN",
                            "Rejected.SESSION_LOST",
                            "Rejected.NOT_FOUND",
                            "Rejected.LIMIT",
                            "Rejected.REQUEST_TOO_OLD",
                            "Rejected.INVALID",
                            "Rejected.CANCELLED",
                            "Rejected.KEY_FENCED",
                            "WaitResolved.GRANTED",
                            "WaitResolved.HELD",
                            "WaitResolved.CANCELLED",
                            "WaitResolved.SESSION_LOST",
                            "LeaseEnded.EXPIRED",
                            "LeaseEnded.DISCONNECTED",
                            "LeaseEnded.RELEASED",
                            "SessionEnded",
                            // Semaphores and shared leases: each rule's situation, as the model saw it.
                            "shared.grantedBeside",
                            "shared.admittedBeside",
                            "shared.heldBackByWaiter",
                            "semaphore.grantedBeside",
                            "semaphore.admittedBeside",
                            "semaphore.full",
                            "exclusive.admittedAfterShared",
                            "exclusive.headLeft",
                            "downgrade.admitted",
                            "downgrade.alone",
                            "Rejected.INVALID.permitsMismatch",
                            "Rejected.INVALID.upgrade");
        }
    }

    @Test
    void twoMachinesFedTheSameSequenceProduceIdenticalSnapshots() {
        for (long seed = 10_000; seed < 10_030; seed++) {
            Run run = new Run(generate(seed, OPS_PER_RUN), false);
            assertThat(run.execute()).isNull();
            StateMachine one = new StateMachine(LIMITS);
            StateMachine two = new StateMachine(LIMITS);
            for (int i = 0; i < run.steps.size(); i++) {
                feed(one, run.steps.get(i));
                feed(two, run.steps.get(i));
                if (i % 10 == 0) {
                    assertThat(one.snapshot()).isEqualTo(two.snapshot());
                }
            }
            assertThat(one.snapshot()).isEqualTo(two.snapshot()).isEqualTo(run.machine.snapshot());
        }
    }

    private static void feed(StateMachine sm, Step s) {
        switch (s.what()) {
            case "apply" -> sm.apply(s.ts(), s.command());
            case "advance" -> sm.advance(s.ts());
            default -> sm.onNewTerm(s.ts());
        }
    }

    /** Greedy shrinking: drop chunks, then single ops, while the run still fails. */
    static List<Op> shrink(List<Op> ops) {
        List<Op> current = new ArrayList<>(ops);
        for (int chunk = current.size() / 2; chunk >= 1; chunk /= 2) {
            boolean progress = true;
            while (progress) {
                progress = false;
                for (int from = 0; from + chunk <= current.size(); from += chunk) {
                    List<Op> candidate = new ArrayList<>(current.subList(0, from));
                    candidate.addAll(current.subList(from + chunk, current.size()));
                    if (new Run(candidate, true).execute() != null) {
                        current = candidate;
                        progress = true;
                        break;
                    }
                }
            }
        }
        return current;
    }

    /** One execution of an operation list against a machine and the model. */
    static final class Run {
        final List<Op> ops;
        final boolean restoreMidway;
        final ReferenceModel model = new ReferenceModel(LIMITS);
        /** Fed the same inputs, never restored, and left on the default (touched-only) invariant checks. */
        final StateMachine twin = new StateMachine(LIMITS);

        StateMachine machine = newMachine();
        final List<Step> steps = new ArrayList<>();
        final TreeMap<Long, Long> nextRid = new TreeMap<>();
        final List<Command> retryable = new ArrayList<>();
        /** How often each kind of outcome and event occurred: proof that the generator reaches them. */
        final TreeMap<String, Integer> seen = new TreeMap<>();

        long t = 1_000;

        Run(List<Op> ops, boolean restoreMidway) {
            this.ops = ops;
            this.restoreMidway = restoreMidway;
        }

        static StateMachine newMachine() {
            StateMachine sm = new StateMachine(LIMITS);
            sm.setFullInvariantChecks(true);
            return sm;
        }

        /** Null when machine and model agreed all the way, else what went wrong first. */
        String execute() {
            for (int i = 0; i < ops.size(); i++) {
                if (restoreMidway && i == ops.size() / 2) {
                    String bad = restore();
                    if (bad != null) return "at op " + i + ": " + bad;
                }
                try {
                    String bad = step(ops.get(i));
                    if (bad != null) return "at op " + i + " " + ops.get(i) + ": " + bad;
                } catch (RuntimeException e) {
                    return "at op " + i + " " + ops.get(i) + ": " + e;
                }
            }
            if (!Arrays.equals(twin.snapshot(), machine.snapshot())) return "restored machine diverged from its twin";
            return null;
        }

        private String restore() {
            byte[] s = machine.snapshot();
            machine = StateMachine.restore(s, LIMITS);
            machine.setFullInvariantChecks(true);
            return Arrays.equals(machine.snapshot(), s) ? null : "snapshot(restore(s)) != s";
        }

        private String step(Op op) {
            Kind k = op.kind();
            if (k == Kind.ADVANCE) {
                t += op.a() % 300;
                return record(new Step("advance", t, null), null);
            }
            if (k == Kind.NEW_TERM) {
                long ts = t + op.a() % 500 - 100;
                t = Math.max(t, ts);
                return record(new Step("term", ts, null), null);
            }
            if (op.d() % 3 == 0) t += op.a() % 100;
            long ts = op.b() % 17 == 0 ? t - 30 : t; // now and then a timestamp behind the clock
            Command c = command(op);
            if (c instanceof Acquire
                    || c instanceof Command.RenewLease
                    || c instanceof Command.WriteCheckpoint
                    || c instanceof Release
                    || c instanceof Put
                    || c instanceof Delete
                    || c instanceof CancelWait
                    || c instanceof Command.Downgrade) {
                retryable.add(c);
            }
            return record(new Step("apply", ts, c), c);
        }

        private String record(Step s, Command c) {
            steps.add(s);
            Result expected = null;
            Result actual = null;
            switch (s.what()) {
                case "apply" -> {
                    expected = model.apply(s.ts(), c);
                    actual = machine.apply(s.ts(), c);
                    twin.apply(s.ts(), c);
                }
                case "advance" -> {
                    model.advance(s.ts());
                    machine.advance(s.ts());
                    twin.advance(s.ts());
                }
                default -> {
                    model.newTerm(s.ts());
                    machine.onNewTerm(s.ts());
                    twin.onNewTerm(s.ts());
                }
            }
            machine.checkInvariants();
            return compare(c, expected, actual);
        }

        private String compare(Command c, Result expected, Result actual) {
            if (!normal(expected).equals(normal(actual))) {
                return c + " gave " + actual + ", model says " + expected;
            }
            List<Event> got = new ArrayList<>();
            machine.drainEvents(got);
            tally(actual);
            got.forEach(this::tally);
            twin.drainEvents(new ArrayList<>());
            List<String> want =
                    model.events.stream().map(ModelCheckTest::normal).toList();
            model.events.clear();
            if (!got.stream().map(ModelCheckTest::normal).toList().equals(want)) {
                return "events " + got + ", model says " + want;
            }
            if (machine.nowMs() != model.now
                    || machine.lastToken() != model.lastToken
                    || machine.nextDeadlineMs() != model.nextDeadline()) {
                return "clock/token/deadline " + machine.nowMs() + "/" + machine.lastToken() + "/"
                        + machine.nextDeadlineMs() + ", model says " + model.now + "/" + model.lastToken + "/"
                        + model.nextDeadline();
            }
            return null;
        }

        private void tally(Object o) {
            if (o == null) return;
            String label = o.getClass().getSimpleName();
            if (o instanceof Rejected r) label = "Rejected." + r.code();
            if (o instanceof Event.WaitResolved w)
                label = "WaitResolved." + (w.result() instanceof Rejected r ? r.code() : "GRANTED");
            if (o instanceof Event.LeaseEnded e) label = "LeaseEnded." + e.end();
            if (o instanceof Result.Granted g) {
                label = "Granted.after." + g.grant().previousEnd();
                if (g.grant().previousCheckpoint() != null) seen.merge("Granted.withCheckpoint", 1, Integer::sum);
            }
            if (o instanceof Result.LockView v && v.delayUntilMs() != 0)
                seen.merge("LockView.delayed", 1, Integer::sum);
            if (o instanceof Result.LockView v && v.staleWrites().count() > 0)
                seen.merge("LockView.staleWrites", 1, Integer::sum);
            if (o instanceof Rejected r && r.code() == Code.HELD && r.message().contains("lock delay"))
                seen.merge("Rejected.HELD.delayed", 1, Integer::sum);
            seen.merge(label, 1, Integer::sum);
        }

        // ---- turning an operation into a command, using the model to aim it -------------------

        private Command command(Op op) {
            if (model.sessions.size() < 2 && op.c() % 3 != 0) {
                op = new Op(Kind.OPEN, op.a(), op.b(), op.c(), op.d()); // keep enough sessions to contend
            }
            long sid = session(op);
            String lock = LOCKS[op.c() % LOCKS.length];
            String key = KEYS[op.c() % KEYS.length];
            long current = model.tokenOf(lock);
            long stale = Math.max(0, current - 1 - op.d() % 3);
            return switch (op.kind()) {
                case OPEN -> new OpenSession(TTLS[op.d() % TTLS.length], op.a() % 2 == 0 ? "" : "c" + op.a() % 10);
                case KEEPALIVE -> keepAlive(op, sid);
                case ACQUIRE_NOW -> new Acquire(sid, rid(sid), lock, 0);
                case ACQUIRE_BOUNDED -> new Acquire(sid, rid(sid), lock, 1 + op.d() % 800);
                case ACQUIRE_FOREVER -> new Acquire(sid, rid(sid), lock, -1, Policy.NONE, op.a() % 2);
                case ACQUIRE_POLICY -> new Acquire(sid, rid(sid), lock, op.a() % 3 == 0 ? 0 : -1, policy(op));
                case RENEW_LEASE -> renew(op, sid);
                case CHECKPOINT ->
                    new Command.WriteCheckpoint(
                            op.d() % 3 == 0 ? 0 : sid, rid(sid), lock, current, new byte[op.a() % 5]);
                case CHECKPOINT_STALE ->
                    new Command.WriteCheckpoint(op.d() % 2 == 0 ? 0 : sid, rid(sid), lock, stale, new byte[] {7});
                case GIVE_UP -> new CloseSession(sid, TenureEnd.EXPIRED);
                case RELEASE_OWN -> new Release(sid, rid(sid), lock, op.a() % 4 == 0 ? current : own(sid, lock), false);
                case RELEASE_STALE -> new Release(sid, rid(sid), lock, stale, op.d() % 2 == 0);
                case RELEASE_FORCED -> new Release(sid, rid(sid), lock, op.d() % 4 == 0 ? stale : current, true);
                case CANCEL -> cancel(op, sid);
                case CLOSE -> new CloseSession(sid, TenureEnd.RELEASED);
                // Now and then the gateway's own end for a principal the ACL no longer allows.
                case DISCONNECT ->
                    new CloseSession(
                            sid, op.b() % 5 == 0 ? TenureEnd.REVOKED : TenureEnd.DISCONNECTED, attachment(op, sid));
                case RESUME -> new ResumeSession(sid);
                case PUT_FENCED ->
                    new Put(
                            sid,
                            rid(sid),
                            key,
                            new byte[] {(byte) op.d()},
                            lock,
                            op.a() % 2 == 0 ? current : own(sid, lock));
                case PUT_STALE -> new Put(op.d() % 2 == 0 ? 0 : sid, rid(sid), key, new byte[] {1, 2}, lock, stale);
                case PUT_UNFENCED ->
                    new Put(op.d() % 2 == 0 ? 0 : sid, rid(sid), key, new byte[op.d() % 3], null, 0, op.a() % 4 == 0);
                case DELETE -> new Delete(sid, rid(sid), key, op.d() % 2 == 0 ? null : lock, current, op.a() % 4 == 0);
                case PUT_IF_VERSION ->
                    new Put(
                            op.d() % 2 == 0 ? 0 : sid,
                            rid(sid),
                            key,
                            new byte[op.d() % 3],
                            null,
                            0,
                            op.a() % 4 == 0,
                            "",
                            op.b() % 4,
                            false);
                case PUT_EPHEMERAL ->
                    new Put(
                            op.d() % 5 == 0 ? 0 : sid,
                            rid(sid),
                            key,
                            new byte[] {3},
                            null,
                            0,
                            op.a() % 4 == 0,
                            "",
                            op.b() % 3 == 0 ? op.b() % 4 : Command.ANY_VERSION,
                            true);
                case DELETE_IF_VERSION -> new Delete(sid, rid(sid), key, null, 0, op.a() % 4 == 0, op.b() % 4);
                case GET -> new Get(key);
                case STATUS -> new Status(lock);
                case STATS -> new Stats();
                case ACQUIRE_SHARED -> new Acquire(sid, rid(sid), lock, waitMs(op), Policy.NONE, 0, 1, true);
                case ACQUIRE_PERMITS ->
                    new Acquire(sid, rid(sid), lock, waitMs(op), Policy.NONE, 0, permits(op), false);
                case DOWNGRADE -> downgrade(op, sid);
                case RETRY -> retry(op);
                case MALFORMED -> malformed(op, sid);
                default -> throw new IllegalStateException(op.toString());
            };
        }

        /** Like a gateway's batch: every live session, except now and then one that fell silent, plus noise. */
        private Command keepAlive(Op op, long sid) {
            List<Long> ids = new ArrayList<>();
            for (ReferenceModel.S s : model.sessions) ids.add(s.id);
            if (op.d() % 3 == 0 && !ids.isEmpty()) ids.remove(op.a() % ids.size());
            ids.add(sid);
            ids.add(model.lastSid + 1);
            return new KeepAlive(ids);
        }

        private static Policy policy(Op op) {
            return new Policy(
                    LOCK_DELAYS[op.b() % LOCK_DELAYS.length],
                    MAX_HOLDS[op.c() / 3 % MAX_HOLDS.length],
                    LEASE_TTLS[op.d() % LEASE_TTLS.length]);
        }

        /** The token of the session's own lease of the lock, else the lock's first (someone else's or 0). */
        private long own(long sid, String lock) {
            ReferenceModel.L l = model.lock(lock);
            ReferenceModel.H h = l == null ? null : l.leaseOf(sid);
            return h != null ? h.token() : model.tokenOf(lock);
        }

        /** Now, bounded or forever. */
        private static long waitMs(Op op) {
            return switch (op.a() % 3) {
                case 0 -> 0;
                case 1 -> 1 + op.d() % 800;
                default -> -1;
            };
        }

        /**
         * Mostly the same N for the same name (2 for "a" and "c", 3 for "b"), so that semaphores
         * fill up; now and then another N (a mismatch while the name is busy) or one over permitsMax.
         */
        private static int permits(Op op) {
            return op.a() % 7 == 0 ? 1 + op.b() % 4 : 2 + op.c() % LOCKS.length % 2;
        }

        /** Mostly a lease the session holds exclusively, else any lock's current or a stale token. */
        private Command downgrade(Op op, long sid) {
            if (op.d() % 4 != 0) {
                for (ReferenceModel.L l : model.locks) {
                    ReferenceModel.H h = l.leaseOf(sid);
                    if (h != null && !h.shared()) return new Command.Downgrade(sid, rid(sid), l.name, h.token());
                }
            }
            String lock = LOCKS[op.c() % LOCKS.length];
            return new Command.Downgrade(sid, rid(sid), lock, Math.max(1, model.tokenOf(lock) - op.a() % 2));
        }

        /** Mostly the session's own lease (a work loop renewing), else any lock's current or a stale token. */
        private Command renew(Op op, long sid) {
            if (op.d() % 4 != 0) {
                for (ReferenceModel.L l : model.locks) {
                    ReferenceModel.H h = l.leaseOf(sid);
                    if (h != null) return new Command.RenewLease(sid, rid(sid), l.name, h.token());
                }
            }
            String lock = LOCKS[op.c() % LOCKS.length];
            return new Command.RenewLease(sid, rid(sid), lock, Math.max(1, model.tokenOf(lock) - op.a() % 2));
        }

        /** Mostly a request that is waiting, else a recent request id (granted, settled or unknown). */
        private long cancelTarget(Op op, long sid) {
            if (op.d() % 3 != 0) {
                for (ReferenceModel.L l : model.locks) {
                    for (ReferenceModel.W w : l.queue) if (w.sid == sid) return w.rid;
                }
            }
            return Math.max(1, nextRid.getOrDefault(sid, 1L) - op.d() % 3);
        }

        /**
         * Mostly one of the last few mutating commands (a client retrying after a lost reply), else
         * any. A retried acquire that counts its tries is sometimes sent as its next try.
         */
        private Command retry(Op op) {
            if (retryable.isEmpty()) return new Stats();
            int back = op.d() % 4 == 0 ? op.a() % retryable.size() : op.a() % Math.min(retryable.size(), 6);
            Command c = retryable.get(retryable.size() - 1 - back);
            if (c instanceof Acquire a && a.attempt() > 0 && op.b() % 2 == 0) {
                Acquire next =
                        new Acquire(a.sessionId(), a.requestId(), a.lock(), a.waitMs(), a.policy(), a.attempt() + 1);
                retryable.set(retryable.size() - 1 - back, next);
                return next;
            }
            return c;
        }

        /** Withdraws a wait for any try, the latest try, or an earlier try (a call cut off). */
        private Command cancel(Op op, long sid) {
            long target = cancelTarget(op, sid);
            ReferenceModel.S s = model.session(sid);
            long latest = 0;
            if (s != null) {
                for (ReferenceModel.C x : s.cache) if (x.rid == target) latest = x.attempt;
            }
            long attempt = switch (op.b() % 3) {
                case 0 -> 0;
                case 1 -> latest;
                default -> Math.max(1, latest - 1);
            };
            return new CancelWait(sid, target, attempt);
        }

        private Command malformed(Op op, long sid) {
            return switch (op.d() % 8) {
                case 0 -> new OpenSession(50, "x");
                case 1 -> new Acquire(sid, 0, "a", 0);
                case 2 -> new Acquire(sid, rid(sid), "", 0);
                case 3 -> new Put(sid, rid(sid), "k1", new byte[9], null, 0);
                case 4 -> new Release(sid, rid(sid), "abcde", 1, false);
                case 5 -> new Acquire(sid, rid(sid), "a", 0, Policy.NONE, 0, op.a() % 2 == 0 ? 0 : 4, false);
                case 6 ->
                    new Acquire(
                            sid, rid(sid), "a", -1, op.a() % 2 == 0 ? Policy.NONE : new Policy(50, 0, 0), 0, 2, true);
                default -> new CloseSession(sid, TenureEnd.NONE);
            };
        }

        /** Unconditional, the session's current attachment, or an older one (a late close). */
        private long attachment(Op op, long sid) {
            ReferenceModel.S s = model.session(sid);
            long current = s == null ? 1 : s.attachment;
            return switch (op.d() % 3) {
                case 0 -> 0;
                case 1 -> current;
                default -> Math.max(1, current - 1);
            };
        }

        /** Mostly a live session, sometimes an ended or never-opened one. */
        private long session(Op op) {
            List<ReferenceModel.S> live = model.sessions;
            if (op.b() % 6 != 0 && !live.isEmpty()) {
                return live.get(op.a() % live.size()).id;
            }
            return 1 + op.a() % (model.lastSid + 1);
        }

        /** A fresh request id for the session; retries of old ids come from {@link Kind#RETRY}. */
        private long rid(long sid) {
            return nextRid.merge(sid, 1L, Long::sum);
        }
    }

    /** Results compared by value; rejection messages are the machine's business, codes and tokens are the contract's. */
    static String normal(Object o) {
        if (o instanceof Rejected r) return "Rejected(" + r.code() + "," + r.currentToken() + ")";
        if (o instanceof KvValue v) {
            return "KvValue(" + v.key() + "," + Arrays.toString(v.value()) + "," + v.token() + "," + v.lock() + ","
                    + v.writtenAtMs() + ")";
        }
        if (o instanceof Event.WaitResolved w)
            return "WaitResolved(" + w.sessionId() + "," + w.requestId() + "," + normal(w.result()) + ",a" + w.attempt()
                    + ")";
        return String.valueOf(o);
    }
}
