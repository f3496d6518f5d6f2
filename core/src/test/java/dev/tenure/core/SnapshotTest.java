package dev.tenure.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tenure.core.Command.Acquire;
import dev.tenure.core.Command.CancelWait;
import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.KeepAlive;
import dev.tenure.core.Command.OpenSession;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Command.Release;
import dev.tenure.core.Command.Stats;
import dev.tenure.core.Command.Status;
import dev.tenure.core.Result.KvValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotTest {

    /** A state with every kind of record: pending and settled cache entries, waiters, history, idle locks, kv. */
    static Fixture richState() {
        Fixture f = new Fixture(Fixture.small());
        long a = f.open(1_000, "a");
        long b = f.open(2_000, "\u00e9");
        long c = f.open(3_000, "");
        Grant x = f.grant(a, 1, "x");
        f.release(a, 2, "x", x.token());
        Grant x2 = f.grant(b, 1, "x");
        f.apply(new Acquire(a, 3, "x", 500));
        f.apply(new Acquire(c, 1, "x", -1));
        Grant y = f.grant(c, 2, "y");
        f.release(c, 3, "y", y.token());
        f.grant(a, 4, "z");
        f.release(a, 5, "z", 3); // NOT_OWNER, cached
        f.apply(new Put(b, 2, "k1", new byte[] {1, 2}, "x", x2.token()));
        f.apply(new Put(0, 0, "k2", new byte[0], null, 0));
        f.apply(new Put(0, 0, "k3", new byte[] {3}, "x", x.token())); // stale: counted on x
        // Policies: a manual lease with maxHold and a checkpoint, and a lock in its lock delay.
        Grant p = ((Result.Granted) f.apply(new Acquire(b, 3, "p", 0, new Policy(0, 5_000, 1_000)))).grant();
        f.apply(new Command.WriteCheckpoint(b, 4, "p", p.token(), new byte[] {4, 2}));
        f.apply(new Command.WriteCheckpoint(0, 0, "p", x.token(), new byte[] {6})); // stale
        f.apply(new Command.RenewLease(b, 5, "p", p.token()));
        f.apply(new Acquire(c, 4, "q", 0, new Policy(2_000, 0, 100)));
        f.now += 150;
        f.apply(new KeepAlive(List.of(a, b, c))); // q's manual lease expired: its lock delay runs
        f.now += 100;
        f.apply(new KeepAlive(List.of(a, b, c)));
        f.apply(new Command.ResumeSession(b)); // attachment 2 must survive a restore
        f.events();
        return f;
    }

    static List<Command> continuation() {
        return List.of(
                new Acquire(3, 9, "y", 0),
                new Release(2, 5, "x", 2, false),
                new CancelWait(3, 1),
                new Put(1, 9, "k1", new byte[] {9}, "x", 4),
                new Get("k1"),
                new CloseSession(1, TenureEnd.DISCONNECTED),
                new CloseSession(2, TenureEnd.DISCONNECTED, 1),
                new Command.ResumeSession(2),
                new OpenSession(500, "d"),
                new Status("x"),
                new Stats());
    }

    @Test
    void snapshotOfRestoreIsByteIdentical() {
        byte[] s = richState().sm.snapshot();
        StateMachine restored = StateMachine.restore(s, Fixture.small());
        assertThat(restored.snapshot()).isEqualTo(s);
        assertThat(restored.nowMs()).isEqualTo(richState().sm.nowMs());
        assertThat(restored.lastToken()).isEqualTo(richState().sm.lastToken());
        assertThat(restored.nextDeadlineMs()).isEqualTo(richState().sm.nextDeadlineMs());
    }

    @Test
    void restoredMachineBehavesExactlyLikeTheOriginal() {
        Fixture original = richState();
        StateMachine restored = StateMachine.restore(original.sm.snapshot(), Fixture.small());
        restored.setFullInvariantChecks(true);
        long t = original.now;
        for (Command c : continuation()) {
            t += 150;
            assertThat(describe(restored.apply(t, c))).isEqualTo(describe(original.sm.apply(t, c)));
            assertThat(drain(restored)).isEqualTo(drain(original.sm));
        }
        for (long at = t; at < t + 5_000; at += 250) {
            original.sm.advance(at);
            restored.advance(at);
            assertThat(drain(restored)).isEqualTo(drain(original.sm));
        }
        assertThat(restored.snapshot()).isEqualTo(original.sm.snapshot());
    }

    private static List<Event> drain(StateMachine sm) {
        List<Event> out = new ArrayList<>();
        sm.drainEvents(out);
        return out;
    }

    private static String describe(Result r) {
        return r instanceof KvValue v
                ? v.key() + Arrays.toString(v.value()) + v.token() + v.lock() + v.writtenAtMs()
                : String.valueOf(r);
    }

    @Test
    void emptyMachineRoundTrips() {
        byte[] s = new StateMachine(Limits.defaults()).snapshot();
        assertThat(StateMachine.restore(s, Limits.defaults()).snapshot()).isEqualTo(s);
    }

    @Test
    void everyTruncationIsRejected() {
        byte[] s = richState().sm.snapshot();
        for (int len = 0; len < s.length; len++) {
            byte[] cut = Arrays.copyOf(s, len);
            assertThatThrownBy(() -> StateMachine.restore(cut, Fixture.small()))
                    .as("truncated to %d bytes", len)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void everySingleBitFlipIsRejected() {
        byte[] s = richState().sm.snapshot();
        for (int i = 0; i < s.length; i++) {
            for (int bit = 0; bit < 8; bit += 3) {
                byte[] bad = s.clone();
                bad[i] ^= (byte) (1 << bit);
                int at = i;
                assertThatThrownBy(() -> StateMachine.restore(bad, Fixture.small()))
                        .as("bit %d of byte %d flipped", bit, at)
                        .isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void badMagicVersionTrailingBytesAndNullAreRejected() {
        byte[] s = richState().sm.snapshot();
        byte[] magic = s.clone();
        magic[0] = 'X';
        assertThatThrownBy(() -> StateMachine.restore(magic, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("magic");
        byte[] version = s.clone();
        version[7] = 9;
        assertThatThrownBy(() -> StateMachine.restore(version, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 9");
        byte[] longer = Arrays.copyOf(s, s.length + 1);
        assertThatThrownBy(() -> StateMachine.restore(longer, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StateMachine.restore(null, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void richStateHoldsEveryPolicyRecord() {
        Fixture f = richState();
        var p = (Result.LockView) f.apply(new Status("p"));
        assertThat(p.holder().policy()).isEqualTo(new Policy(0, 5_000, 1_000));
        assertThat(p.checkpoint().value()).containsExactly(4, 2);
        assertThat(p.staleWrites().count()).isEqualTo(1);
        var q = (Result.LockView) f.apply(new Status("q"));
        assertThat(q.holder()).isNull();
        assertThat(q.delayUntilMs()).isPositive();
        var x = (Result.LockView) f.apply(new Status("x"));
        assertThat(x.staleWrites().lastTarget()).isEqualTo("kv:k3");
    }

    /** A version-1 snapshot (written before policies existed): one held lock with a waiter and a cached grant. */
    static byte[] version1Snapshot() {
        SnapshotWriter w = new SnapshotWriter();
        w.i32(SnapshotCodec.MAGIC);
        w.i32(SnapshotCodec.VERSION_1);
        w.i64(5_000); // now
        w.i64(3); // lastToken
        w.i64(2); // lastSessionId
        w.i32(2); // sessions
        for (long id = 1; id <= 2; id++) {
            w.i64(id);
            w.i64(10_000);
            w.string("s" + id);
            w.i64(9_000);
            w.i64(0);
            w.i32(1); // one cached outcome
            w.i64(1);
            if (id == 1) {
                w.u8(1); // granted, version-1 shape
                w.string("x");
                w.i64(3);
                w.i64(1);
                w.i64(4_000);
                w.i64(10_000);
                w.u8(1); // previous RELEASED
                w.i64(2);
            } else {
                w.u8(0); // waiting on x
                w.string("x");
            }
        }
        w.i32(1); // locks
        w.string("x");
        w.bool(true);
        w.i64(1);
        w.i64(3);
        w.i64(4_000);
        w.u8(1);
        w.i64(2);
        w.i32(1); // one waiter
        w.i64(2);
        w.i64(1);
        w.i64(4_500);
        w.i64(Waiter.NEVER);
        w.i32(0); // history
        w.u8(1);
        w.i64(2);
        w.i32(0); // idle
        w.i32(0); // kv
        return w.finishWithChecksum();
    }

    @Test
    void aVersionOneSnapshotIsReadWithEveryPolicyOff() {
        StateMachine sm = StateMachine.restore(version1Snapshot(), Limits.defaults());
        var view = (Result.LockView) sm.apply(5_000, new Status("x"));
        assertThat(view.holder().policy()).isEqualTo(Policy.NONE);
        assertThat(view.holder().endsAtMs()).isEqualTo(Long.MAX_VALUE);
        assertThat(view.delayUntilMs()).isZero();
        assertThat(view.checkpoint()).isNull();
        assertThat(view.staleWrites()).isEqualTo(StaleWrites.NONE);
        // The cached grant replays in the new shape; the waiter is granted under no policy.
        var replay = (Result.Granted) sm.apply(5_000, new Acquire(1, 1, "x", 0));
        assertThat(replay.grant().policy()).isEqualTo(Policy.NONE);
        assertThat(replay.grant().previousCheckpoint()).isNull();
        sm.apply(5_000, new Release(1, 2, "x", 3, false));
        assertThat(((Result.LockView) sm.apply(5_000, new Status("x"))).holder().sessionId())
                .isEqualTo(2);
        // Written back, it is a version-2 snapshot that round-trips byte for byte.
        byte[] v2 = sm.snapshot();
        assertThat(v2[7]).isEqualTo((byte) SnapshotCodec.VERSION);
        assertThat(StateMachine.restore(v2, Limits.defaults()).snapshot()).isEqualTo(v2);
    }

    @Test
    void wellFormedButInconsistentSnapshotFailsTheInvariants() {
        SnapshotWriter w = new SnapshotWriter();
        w.i32(SnapshotCodec.MAGIC);
        w.i32(SnapshotCodec.VERSION_1); // the version-1 layout, which this build still reads
        w.i64(0); // now
        w.i64(0); // lastToken 0 ...
        w.i64(1); // lastSessionId
        w.i32(1); // one session
        w.i64(1);
        w.i64(1_000);
        w.string("a");
        w.i64(1_000);
        w.i64(0);
        w.i32(0);
        w.i32(1); // one lock, held with token 7 > lastToken
        w.string("x");
        w.bool(true);
        w.i64(1);
        w.i64(7);
        w.i64(0);
        w.u8(0);
        w.i64(0);
        w.i32(0);
        w.i32(0);
        w.u8(0);
        w.i64(0);
        w.i32(0); // idle
        w.i32(0); // kv
        byte[] forged = w.finishWithChecksum();
        assertThatThrownBy(() -> StateMachine.restore(forged, Limits.defaults()))
                .isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("lastToken");
    }

    @Test
    void restoreWithTighterLimitsThanTheStateFailsTheInvariants() {
        byte[] s = richState().sm.snapshot();
        Limits tighter = new Limits(100, 10_000, 8, 8, 4, 4, 2, 2, 2, 2, 3, 2, 2); // sessionsMax 2 < 3 sessions
        assertThatThrownBy(() -> StateMachine.restore(s, tighter)).isInstanceOf(InvariantViolation.class);
    }

    @Test
    void everyEnumConstantHasAnEncoding() {
        for (TenureEnd e : TenureEnd.values()) {
            assertThat(SnapshotCodec.ENDS[SnapshotCodec.index(SnapshotCodec.ENDS, e)])
                    .isEqualTo(e);
        }
        for (Code c : Code.values()) {
            assertThat(SnapshotCodec.CODES[SnapshotCodec.index(SnapshotCodec.CODES, c)])
                    .isEqualTo(c);
        }
    }
}
