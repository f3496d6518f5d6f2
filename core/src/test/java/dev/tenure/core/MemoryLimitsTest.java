package dev.tenure.core;

import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.WriteCheckpoint;
import dev.tenure.core.Result.Granted;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.Ok;
import dev.tenure.core.Result.Queued;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.Written;
import org.junit.jupiter.api.Test;

/**
 * The limits that bound what the replicated state holds, so that a node can tell at start whether
 * its heap holds it: the KV's bytes and each principal's share of the KV, busy locks, queued
 * acquires and checkpoint bytes. Each refusal is LIMIT, names the limit (and the principal), and
 * changes nothing; what the limits count is derived again from the records on restore.
 */
class MemoryLimitsTest {

    private static final Limits LIMITS = Limits.defaults()
            .with("kvBytesMax", 20)
            .with("kvKeysPerPrincipalMax", 2)
            .with("kvBytesPerPrincipalMax", 12)
            .with("locksMax", 2)
            .with("waitersMax", 1)
            .with("checkpointTotalBytesMax", 10)
            .with("idleLocksMax", 1);

    private final Fixture f = new Fixture(LIMITS);

    private static Put put(String key, int valueBytes, String principal) {
        return new Put(0, 0, key, new byte[valueBytes], null, 0, false, principal);
    }

    private void assertRefused(Result r, String message) {
        Rejected x = rejected(r);
        assertThat(x.code()).isEqualTo(Code.LIMIT);
        assertThat(x.message()).isEqualTo(message);
    }

    @Test
    void theKvHoldsAtMostKvBytesMaxOfKeysValuesAndLockNames() {
        assertThat(f.apply(put("k1", 8, ""))).isEqualTo(new Written(1)); // 2 + 8 bytes
        assertThat(f.apply(put("k2", 8, ""))).isEqualTo(new Written(1)); // 20 in all: full
        assertRefused(
                f.apply(put("k3", 0, "")), "kvBytesMax (20) reached: the KV holds 20 bytes and this write adds 2");
        assertRefused(
                f.apply(put("k1", 9, "")), "kvBytesMax (20) reached: the KV holds 20 bytes and this write adds 1");
        assertThat(f.apply(new Get("k3"))).isInstanceOf(Rejected.class); // nothing changed
        assertThat(((KvValue) f.apply(new Get("k1"))).value()).hasSize(8);
        // A write that stores no more than it replaces is let through, so a full store can still
        // be rewritten in place; a delete makes room.
        assertThat(f.apply(put("k1", 3, ""))).isEqualTo(new Written(2));
        assertThat(f.apply(put("k3", 3, ""))).isEqualTo(new Written(1));
        assertThat(f.apply(new Delete(0, 0, "k2", null, 0))).isEqualTo(new Written(1));
        assertThat(f.apply(put("k4", 8, ""))).isEqualTo(new Written(1));
    }

    @Test
    void aFencedWriteCountsItsLockNameAndSharesTheLocksString() {
        long a = f.open(1_000);
        Grant g = f.grant(a, 1, "lock");
        assertThat(f.apply(new Put(a, 2, "k", new byte[14], "lock", g.token())))
                .isEqualTo(new Written(1)); // 1 + 14 + 4
        assertRefused(
                f.apply(new Put(a, 3, "j", new byte[1], null, 0)),
                "kvBytesMax (20) reached: the KV holds 19 bytes and this write adds 2");
    }

    @Test
    void onePrincipalCannotFillTheKvForTheOthers() {
        assertThat(f.apply(put("a1", 4, "alice"))).isEqualTo(new Written(1)); // 6 bytes
        assertThat(f.apply(put("a2", 4, "alice"))).isEqualTo(new Written(1)); // 12: alice's quota
        assertRefused(f.apply(put("a3", 0, "alice")), "kvKeysPerPrincipalMax (2) reached by principal alice");
        assertRefused(
                f.apply(put("a1", 5, "alice")),
                "kvBytesPerPrincipalMax (12) reached by principal alice: it holds 12 bytes and this write adds 1");
        // bob still writes; writes without a principal count against the node only.
        assertThat(f.apply(put("b1", 4, "bob"))).isEqualTo(new Written(1));
        assertThat(f.apply(put("n1", 0, ""))).isEqualTo(new Written(1));
        // The last writer holds a key: bob's overwrite of a1 moves it, and its bytes, to bob.
        assertThat(f.apply(put("a1", 2, "bob"))).isEqualTo(new Written(2));
        assertThat(f.apply(put("a3", 0, "alice"))).isEqualTo(new Written(1));
        assertRefused(f.apply(put("b2", 0, "bob")), "kvKeysPerPrincipalMax (2) reached by principal bob");
        // A delete, by anyone, gives the key's bytes back to its holder.
        assertThat(f.apply(new Delete(0, 0, "b1", null, 0))).isEqualTo(new Written(1));
        assertThat(f.apply(put("b2", 0, "bob"))).isEqualTo(new Written(1));
    }

    @Test
    void aRestoredStateCountsEachPrincipalsKeysAgain() {
        f.apply(put("a1", 4, "alice"));
        f.apply(put("a2", 4, "alice"));
        f.apply(put("b1", 4, "bob"));
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), LIMITS);
        assertThat(rejected(restored.apply(f.now, put("a3", 0, "alice"))).message())
                .isEqualTo("kvKeysPerPrincipalMax (2) reached by principal alice");
        assertThat(restored.apply(f.now, put("b2", 0, "bob"))).isEqualTo(new Written(1));
        assertThat(rejected(restored.apply(f.now, put("n", 1, ""))).message())
                .isEqualTo("kvBytesMax (20) reached: the KV holds 20 bytes and this write adds 2");
    }

    @Test
    void atMostLocksMaxLocksAreBusyAndIdleOnesDoNotCount() {
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant x = f.grant(a, 1, "x");
        f.grant(a, 2, "y");
        assertRefused(f.apply(new Acquire(b, 1, "z", 0)), "locksMax (2) reached");
        // The busy ones are still handed on, waited for and re-entered.
        assertThat(f.apply(new Acquire(b, 2, "x", -1))).isInstanceOf(Queued.class);
        assertThat(f.apply(new Acquire(a, 3, "x", 0))).isInstanceOf(Granted.class);
        f.release(a, 4, "x", x.token());
        assertThat(f.events()).hasSize(1); // b is granted x
        // A lock that goes idle makes room.
        f.apply(new CloseSession(b, TenureEnd.RELEASED));
        long c = f.open(1_000);
        assertThat(f.apply(new Acquire(c, 1, "z", 0))).isInstanceOf(Granted.class);
    }

    @Test
    void atMostWaitersMaxAcquiresQueueOverAllLocks() {
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.grant(a, 1, "x");
        f.grant(a, 2, "y");
        assertThat(f.apply(new Acquire(b, 1, "x", -1))).isInstanceOf(Queued.class);
        assertRefused(f.apply(new Acquire(b, 2, "y", -1)), "waitersMax (1) reached");
        f.apply(new Command.CancelWait(b, 1));
        assertThat(f.apply(new Acquire(b, 3, "y", -1))).isInstanceOf(Queued.class);
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), LIMITS);
        assertThat(rejected(restored.apply(f.now, new Acquire(b, 4, "x", -1))).message())
                .isEqualTo("waitersMax (1) reached");
    }

    @Test
    void checkpointsCountTheLocksAndTheOnesTheirLeasesWereGrantedWith() {
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant x = f.grant(a, 1, "x");
        assertThat(f.apply(new WriteCheckpoint(a, 2, "x", x.token(), new byte[4])))
                .isEqualTo(new Ok());
        f.release(a, 3, "x", x.token());
        Grant x2 = f.grant(b, 1, "x"); // granted with the 4-byte checkpoint: the same one, counted once
        assertThat(x2.previousCheckpoint().value()).hasSize(4);
        // Writing another keeps both: the lock's new one, and the one the lease was granted with.
        assertThat(f.apply(new WriteCheckpoint(b, 2, "x", x2.token(), new byte[6])))
                .isEqualTo(new Ok());
        assertRefused(
                f.apply(new WriteCheckpoint(b, 3, "x", x2.token(), new byte[7])),
                "checkpointTotalBytesMax (10) reached: the locks keep 10 checkpoint bytes and this write adds 1");
        Grant y = f.grant(a, 4, "y");
        assertRefused(
                f.apply(new WriteCheckpoint(a, 5, "y", y.token(), new byte[1])),
                "checkpointTotalBytesMax (10) reached: the locks keep 10 checkpoint bytes and this write adds 1");
        // The lease's end lets its granted checkpoint go; an idle lock dropped lets its own go.
        f.release(b, 4, "x", x2.token());
        assertThat(f.apply(new WriteCheckpoint(a, 6, "y", y.token(), new byte[4])))
                .isEqualTo(new Ok());
        f.release(a, 7, "y", y.token()); // y idle: x, idle before it, is dropped (idleLocksMax 1)
        long c = f.open(1_000);
        Grant z = f.grant(c, 1, "z");
        assertThat(f.apply(new WriteCheckpoint(c, 2, "z", z.token(), new byte[6])))
                .isEqualTo(new Ok());
    }

    @Test
    void aLeaseSharesItsGrantsCheckpointWithItsLockThroughASnapshot() {
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant x = f.grant(a, 1, "x");
        f.apply(new WriteCheckpoint(a, 2, "x", x.token(), new byte[6]));
        f.release(a, 3, "x", x.token());
        Grant x2 = f.grant(b, 1, "x");
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), LIMITS);
        // Counted once (6 of 10), as before the snapshot: 4 more fit, 5 do not.
        assertThat(restored.apply(f.now, new WriteCheckpoint(b, 2, "x", x2.token(), new byte[4])))
                .isEqualTo(new Ok());
        assertThat(f.apply(new WriteCheckpoint(b, 2, "x", x2.token(), new byte[4])))
                .isEqualTo(new Ok());
        assertThat(restored.snapshot()).isEqualTo(f.sm.snapshot());
    }

    @Test
    void aRetriedAcquireGetsItsGrantFromTheLeaseNotACopyOfTheCheckpointInTheCache() {
        long a = f.open(1_000);
        long b = f.open(1_000);
        Grant x = f.grant(a, 1, "x");
        f.apply(new WriteCheckpoint(a, 2, "x", x.token(), new byte[] {1}));
        f.release(a, 3, "x", x.token());
        Grant first = f.grant(b, 1, "x");
        f.apply(new WriteCheckpoint(b, 2, "x", first.token(), new byte[] {2}));
        // The lock's checkpoint moved on; the retry still gets the grant as first given.
        assertThat(f.apply(new Acquire(b, 1, "x", 0))).isEqualTo(new Granted(first));
        assertThat(StateMachine.restore(f.sm.snapshot(), LIMITS).apply(f.now, new Acquire(b, 1, "x", 0)))
                .isEqualTo(new Granted(first));
        // Once the lease has ended, a retry is told so, as before.
        f.apply(new Release(b, 3, "x", first.token(), false));
        assertThat(rejected(f.apply(new Acquire(b, 1, "x", 0))).code()).isEqualTo(Code.CANCELLED);
    }

    @Test
    void everyLimitCanBeSetByTheNameItsRefusalGives() {
        assertThat(Limits.names())
                .contains(
                        "kvBytesMax",
                        "locksMax",
                        "waitersMax",
                        "checkpointTotalBytesMax",
                        "kvKeysPerPrincipalMax",
                        "kvBytesPerPrincipalMax",
                        "sessionsPerPrincipalMax")
                .doesNotContain("principal");
        for (String name : Limits.names()) {
            long next = Limits.defaults().get(name) + 1;
            assertThat(Limits.defaults().with(name, next).get(name)).as(name).isEqualTo(next);
        }
        assertThat(LIMITS.principal().kvKeysMax()).isEqualTo(2);
        assertThat(LIMITS.with("sessionsPerPrincipalMax", 3).principal().sessionsMax())
                .isEqualTo(3);
    }
}
