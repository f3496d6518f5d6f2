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
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
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
        Grant y2 = f.grant(a, 6, "y");
        f.apply(new Release(b, 6, "y", y2.token(), true)); // forced: the history names b
        f.grant(a, 4, "z");
        f.release(a, 5, "z", 3); // NOT_OWNER, cached
        f.apply(new Put(b, 2, "k1", new byte[] {1, 2}, "x", x2.token()));
        f.apply(new Put(0, 0, "k2", new byte[0], null, 0, false, "ops")); // counts against principal ops
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
    void badMagicTrailingBytesAndNullAreRejected() {
        byte[] s = richState().sm.snapshot();
        byte[] magic = s.clone();
        magic[0] = 'X';
        assertThatThrownBy(() -> StateMachine.restore(magic, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("magic");
        byte[] longer = Arrays.copyOf(s, s.length + 1);
        assertThatThrownBy(() -> StateMachine.restore(longer, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StateMachine.restore(null, Fixture.small()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aSnapshotOfAnyOtherVersionIsRefusedWithAnErrorNamingIt() {
        byte[] s = richState().sm.snapshot();
        assertThat(ByteBuffer.wrap(s).getInt(4)).isEqualTo(9);
        // 1 to 3 are earlier layouts this build no longer reads; 10 is one it does not know yet.
        for (int version : new int[] {0, 1, 2, 3, 10, 11, -1}) {
            byte[] other = withVersion(s, version);
            assertThatThrownBy(() -> StateMachine.restore(other, Fixture.small()))
                    .as("version %d", version)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("unsupported snapshot version " + version + ": this build reads versions 4 to 9 only");
        }
    }

    /**
     * Version 4, written field by field: one session holding lock x, whose history has two past
     * tenures, the second forced by session 2. Version 4 sessions have no principal and no secret
     * hash; they are read as opened without either, and history records with empty principals.
     */
    private static byte[] versionFourSnapshot() {
        SnapshotWriter w = new SnapshotWriter();
        w.i32(SnapshotCodec.MAGIC);
        w.i32(4);
        w.i64(5_000); // now
        w.i64(3); // lastToken
        w.i64(2); // lastSessionId
        w.i64(0); // staleWritesRejected
        w.i32(1); // one session
        w.i64(2); // id
        w.i64(1_000); // ttlMs
        w.string("b");
        w.i64(6_000); // deadlineMs
        w.i64(1); // attachment
        w.i64(0); // highestEvictedRequestId
        w.i32(0); // cached outcomes
        w.i32(0); // attempts
        w.i32(1); // one lock
        w.string("x");
        w.bool(true); // lease: session 2, token 3, granted at 3000, previous EXPIRED token 2
        w.i64(2);
        w.i64(3);
        w.i64(3_000);
        w.u8(2);
        w.i64(2);
        SnapshotCodec.writeCheckpoint(w, null);
        SnapshotCodec.writePolicy(w, Policy.NONE);
        w.i64(LockRecord.NONE); // renewDeadlineMs
        w.i64(LockRecord.NONE); // maxHoldAtMs
        w.i32(0); // waiters
        w.i32(2); // history, oldest first
        w.i64(1);
        w.i64(1);
        w.i64(1_000);
        w.i64(2_000);
        w.u8(1); // RELEASED
        w.i64(0); // not forced
        w.string("");
        w.i64(1);
        w.i64(2);
        w.i64(2_000);
        w.i64(3_000);
        w.u8(4); // REVOKED, forced by session 2 of client "b"
        w.i64(2);
        w.string("b");
        w.u8(4); // lastEnd REVOKED
        w.i64(2); // lastToken
        w.i64(0); // delayUntilMs
        SnapshotCodec.writeCheckpoint(w, null);
        w.i64(0); // staleWrites
        w.i64(0);
        w.i64(0);
        w.string("");
        w.i64(0);
        w.i32(0); // idle
        w.i32(0); // kv
        return w.finishWithChecksum();
    }

    @Test
    void aVersionFourSnapshotLoadsWithoutSecretsOrPrincipalsAndIsWrittenBackAsTheCurrentVersion() {
        byte[] v4 = versionFourSnapshot();
        StateMachine sm = StateMachine.restore(v4, Limits.defaults());
        var x = (Result.LockView) sm.apply(5_000, new Status("x"));
        assertThat(x.history())
                .containsExactly(
                        new TenureRecord(1, 1, 1_000, 2_000, TenureEnd.RELEASED, 0, ""),
                        new TenureRecord(1, 2, 2_000, 3_000, TenureEnd.REVOKED, 2, "b"));
        assertThat(x.holder().sessionId()).isEqualTo(2);
        assertThat(x.holder().token()).isEqualTo(3);

        byte[] current = sm.snapshot();
        assertThat(ByteBuffer.wrap(current).getInt(4))
                .isEqualTo(SnapshotCodec.VERSION)
                .isEqualTo(9);
        // The one session gains its principal and secret hash, each history record two principals
        // (each name an index); the names table holds "" and "b" (4 + 4 + 5), and the two "b"s
        // written where they were used (5 bytes each) become indexes (4 bytes).
        // ... and the limits, charges and barred blocks of version 7 (none recorded, none charged,
        // none barred).
        // ... and version 8's semaphores block of the one lock, held (permits, shared flag, no others),
        // and version 9's revision and elections block (none).
        assertThat(current.length).isEqualTo(v4.length + 4 + 16 + 2 * (4 + 4) + 13 - 2 + 1 + 4 + 4 + 4 + 1 + 4 + 8 + 4);
        assertThat(StateMachine.restore(current, Limits.defaults()).snapshot()).isEqualTo(current);
        assertThat(sm.apply(5_000, new Command.WithSecret(new SecretHash(7, 8), new Command.ResumeSession(2))))
                .as("a session without a secret accepts any request, as before secrets")
                .isInstanceOf(Result.SessionResumed.class);
    }

    /**
     * Version 5, written field by field: session 1 holds lock x under token 2, granted with x's
     * checkpoint (token 1) and remembered in its cache as the whole grant, with a refusal whose
     * message is longer than a cache keeps; key k was written fenced by x. Version 5 entries
     * have no principal, and cached grants were written whole.
     */
    private static byte[] versionFiveSnapshot() {
        Checkpoint checkpoint = new Checkpoint(new byte[] {7, 7, 7}, 1, 1_500);
        SnapshotWriter w = new SnapshotWriter();
        w.i32(SnapshotCodec.MAGIC);
        w.i32(5);
        w.i64(5_000); // now
        w.i64(2); // lastToken
        w.i64(1); // lastSessionId
        w.i64(0); // staleWritesRejected
        w.i32(1); // one session
        w.i64(1); // id
        w.i64(1_000); // ttlMs
        w.string("a");
        w.string(""); // principal
        w.i64(0); // secret hash: none
        w.i64(0);
        w.i64(6_000); // deadlineMs
        w.i64(1); // attachment
        w.i64(0); // highestEvictedRequestId
        w.i32(2); // cached outcomes
        w.i64(1); // request 1: granted x, token 2, the whole grant with its checkpoint
        w.u8(1);
        w.string("x");
        w.i64(2);
        w.i64(1);
        w.i64(2_000);
        w.i64(1_000);
        w.u8(1); // previous end RELEASED
        w.i64(1);
        SnapshotCodec.writeCheckpoint(w, checkpoint);
        SnapshotCodec.writePolicy(w, Policy.NONE);
        w.i64(2); // request 2: a refusal with a long message
        w.u8(3);
        w.u8(1); // HELD
        w.string("m".repeat(200));
        w.i64(9);
        w.i32(0); // attempts
        w.i32(1); // one lock
        w.string("x");
        w.bool(true); // lease: session 1, token 2, granted at 2000 with the checkpoint
        w.i64(1);
        w.i64(2);
        w.i64(2_000);
        w.u8(1);
        w.i64(1);
        SnapshotCodec.writeCheckpoint(w, checkpoint);
        SnapshotCodec.writePolicy(w, Policy.NONE);
        w.i64(LockRecord.NONE); // renewDeadlineMs
        w.i64(LockRecord.NONE); // maxHoldAtMs
        w.i32(0); // waiters
        w.i32(1); // history
        w.i64(1);
        w.i64(1);
        w.i64(1_000);
        w.i64(1_800);
        w.u8(1); // RELEASED
        w.i64(0);
        w.string("");
        w.string(""); // principal
        w.string(""); // forcedByPrincipal
        w.u8(1); // lastEnd RELEASED
        w.i64(1); // lastToken
        w.i64(0); // delayUntilMs
        SnapshotCodec.writeCheckpoint(w, checkpoint);
        w.i64(0); // staleWrites
        w.i64(0);
        w.i64(0);
        w.string("");
        w.i64(0);
        w.i32(0); // idle
        w.i32(1); // kv
        w.string("k");
        w.bytes(new byte[] {1, 2});
        w.i64(2);
        w.string("x");
        w.i64(2_500);
        return w.finishWithChecksum();
    }

    @Test
    void aVersionFiveSnapshotLoadsItsKeysWithoutAPrincipalAndItsGrantsAsTokensAndIsWrittenBackAsTheCurrentVersion() {
        byte[] v5 = versionFiveSnapshot();
        StateMachine sm = StateMachine.restore(v5, Limits.defaults());
        Grant grant = new Grant(
                "x",
                2,
                1,
                2_000,
                1_000,
                TenureEnd.RELEASED,
                1,
                new Checkpoint(new byte[] {7, 7, 7}, 1, 1_500),
                Policy.NONE);
        assertThat(sm.apply(5_000, new Acquire(1, 1, "x", 0)))
                .as("a retry of the cached grant is answered from the lease")
                .isEqualTo(new Result.Granted(grant));
        Result.Rejected refusal = (Result.Rejected) sm.apply(5_000, new Acquire(1, 2, "y", 0));
        assertThat(refusal.code()).isEqualTo(Code.HELD);
        assertThat(refusal.currentToken()).isEqualTo(9);
        assertThat(refusal.message())
                .hasSize(Outcome.MESSAGE_CHARS_MAX)
                .startsWith("mmm")
                .endsWith("\u2026");

        byte[] current = sm.snapshot();
        assertThat(ByteBuffer.wrap(current).getInt(4))
                .isEqualTo(SnapshotCodec.VERSION)
                .isEqualTo(9);
        // The grant shrinks to its token (tag, lock str, 4 i64, end, i64, a checkpoint of 3 bytes,
        // policy: to tag and i64), the message to the cache's length, and the key gains a principal.
        int grantV5 = 1 + (4 + 1) + 4 * 8 + 1 + 8 + (1 + 4 + 3 + 16) + 24;
        int grantV6 = 1 + 8;
        int messageCut = 200 - (Outcome.MESSAGE_CHARS_MAX - 1 + 3); // the ellipsis is 3 bytes of UTF-8
        // The names table holds "" and "a" (4 + 4 + 5); "a", written where it was used (5 bytes),
        // becomes an index (4 bytes), as each "" (4 bytes) does.
        int names = 13 - 1;
        // ... and the limits, charges and barred blocks of version 7 (none recorded, none charged,
        // none barred), and version 8's version and ephemeral owner of its one key (8 + 8) and
        // semaphores block of its one lock, held (permits, shared flag, no others), and version
        // 9's revision (8).
        int semaphores = 4 + 1 + 4;
        assertThat(current.length)
                .isEqualTo(
                        v5.length - grantV5 + grantV6 - messageCut + 4 + names + 1 + 4 + 4 + 16 + semaphores + 8 + 4);
        assertThat(StateMachine.restore(current, Limits.defaults()).snapshot()).isEqualTo(current);
        KvValue k = (KvValue) sm.apply(5_000, new Get("k"));
        assertThat(k.lock()).isEqualTo("x");
        assertThat(k.token()).isEqualTo(2);
    }

    @Test
    void aBarredPrincipalStaysBarredThroughASnapshotAndAVersionSixOneBarsNobody() {
        StateMachine sm = new StateMachine(Limits.defaults());
        sm.apply(1_000, new Command.RevokePrincipal("mallory", true));
        sm.apply(1_000, new Command.RevokePrincipal("eve", true));
        byte[] v7 = sm.snapshot();
        StateMachine restored = StateMachine.restore(v7, Limits.defaults());
        assertThat(restored.snapshot()).isEqualTo(v7);
        assertThat(restored.apply(2_000, new Command.OpenSession(5_000, "c", SecretHash.NONE, "eve")))
                .isInstanceOfSatisfying(
                        Result.Rejected.class, r -> assertThat(r.code()).isEqualTo(Code.DENIED));

        // Version 6 is version 7 without the limits, charges and barred blocks (limits not
        // recorded, no charges, none barred: 1 + 4 + 4 bytes): an empty machine's, relabelled and cut.
        byte[] empty = new StateMachine(Limits.defaults()).snapshot(7);
        int added = 1 + 4 + 4;
        byte[] v6 = withVersion(Arrays.copyOf(Arrays.copyOf(empty, empty.length - 4 - added), empty.length - added), 6);
        StateMachine old = StateMachine.restore(v6, Limits.defaults());
        assertThat(old.snapshot(7)).as("written back as version 7").isEqualTo(empty);
        assertThat(old.apply(2_000, new Command.OpenSession(5_000, "c", SecretHash.NONE, "eve")))
                .isInstanceOf(Result.SessionOpened.class);
    }

    @Test
    void aNamesTableOutOfOrderIsRefused() {
        SnapshotWriter w = new SnapshotWriter();
        w.i32(SnapshotCodec.MAGIC);
        w.i32(SnapshotCodec.VERSION);
        w.i64(0); // now
        w.i64(0); // lastToken
        w.i64(0); // lastSessionId
        w.i64(0); // staleWritesRejected
        w.i32(2); // names, not ascending
        w.string("b");
        w.string("a");
        w.i32(0); // sessions
        w.i32(0); // locks
        w.i32(0); // idle
        w.i32(0); // kv
        w.bool(false); // limits: not recorded
        w.i32(0); // charges: none
        w.i32(0); // barred
        byte[] unordered = w.finishWithChecksum();
        assertThatThrownBy(() -> StateMachine.restore(unordered, Limits.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("snapshot corrupt: names out of order at a");
    }

    @Test
    void aForcedEndKeepsItsForcerThroughASnapshot() {
        Fixture f = richState();
        var y = (Result.LockView) f.apply(new Status("y"));
        TenureRecord forced = y.history().get(y.history().size() - 1);
        assertThat(forced.end()).isEqualTo(TenureEnd.REVOKED);
        assertThat(forced.forcedBySessionId()).isEqualTo(2);
        assertThat(forced.forcedByClient()).isEqualTo("\u00e9");
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), Fixture.small());
        assertThat(restored.apply(f.now, new Status("y"))).isEqualTo(y);
    }

    /**
     * A version 6 snapshot is a version 7 one (what {@link SnapshotCodec#encode(State, int)} writes for 7) without the limits block: the member's own limits
     * are in force until the log sets some, as they were when it was written.
     */
    @Test
    void aVersionSixSnapshotLoadsUnderTheMembersOwnLimits() {
        Fixture f = richState();
        byte[] current = f.sm.snapshot(7);
        // The blocks version 7 added, last before the checksum: limits not recorded, no charges,
        // none barred.
        int added = 1 + 4 + 4;
        int bodyEnd = current.length - 4;
        assertThat(Arrays.copyOfRange(current, bodyEnd - added, bodyEnd)).containsOnly(0);
        ByteBuffer b = ByteBuffer.allocate(current.length - added);
        b.put(current, 0, bodyEnd - added);
        b.putInt(4, 6);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(b.array(), 0, bodyEnd - added);
        b.putInt(bodyEnd - added, (int) crc.getValue());
        byte[] v6 = b.array();

        StateMachine restored = StateMachine.restore(v6, Fixture.small());
        assertThat(restored.limitsRecorded()).isFalse();
        assertThat(restored.limits()).isEqualTo(Fixture.small());
        assertThat(restored.snapshot(7)).isEqualTo(current);
    }

    /** {@code snapshot} relabelled as {@code version}, with a valid checksum, so only the version is wrong. */
    private static byte[] withVersion(byte[] snapshot, int version) {
        byte[] out = snapshot.clone();
        ByteBuffer b = ByteBuffer.wrap(out);
        b.putInt(4, version);
        CRC32 crc = new CRC32();
        crc.update(out, 0, out.length - 4);
        b.putInt(out.length - 4, (int) crc.getValue());
        return out;
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

    @Test
    void wellFormedButInconsistentSnapshotFailsTheInvariants() {
        SnapshotWriter w = new SnapshotWriter();
        w.i32(SnapshotCodec.MAGIC);
        w.i32(SnapshotCodec.VERSION);
        w.i64(0); // now
        w.i64(0); // lastToken 0 ...
        w.i64(1); // lastSessionId
        w.i64(0); // staleWritesRejected
        w.i32(2); // names
        w.string("");
        w.string("a");
        w.i32(1); // one session
        w.i64(1);
        w.i64(1_000);
        w.i32(1); // "a"
        w.i32(0); // principal: none
        w.i64(0); // secret hash: none
        w.i64(0);
        w.i64(1_000);
        w.i64(1); // attachment
        w.i64(0); // highestEvictedRequestId
        w.i32(0); // cached outcomes
        w.i32(0); // attempts
        w.i32(1); // one lock, held with token 7 > lastToken
        w.string("x");
        w.bool(true);
        w.i64(1);
        w.i64(7);
        w.i64(0);
        w.u8(0);
        w.i64(0);
        SnapshotCodec.writeCheckpoint(w, null);
        SnapshotCodec.writePolicy(w, Policy.NONE);
        w.i64(LockRecord.NONE); // renewDeadlineMs
        w.i64(LockRecord.NONE); // maxHoldAtMs
        w.i32(0); // waiters
        w.i32(0); // history
        w.u8(0); // lastEnd
        w.i64(0); // lastToken
        w.i64(0); // delayUntilMs
        SnapshotCodec.writeCheckpoint(w, null);
        w.i64(0); // staleWrites
        w.i64(0);
        w.i64(0);
        w.string("");
        w.i64(0);
        w.i32(1); // permits
        w.bool(false); // exclusive
        w.i32(0); // no other lease
        w.i32(0); // idle
        w.i32(0); // kv
        w.bool(false); // limits: not recorded
        w.i32(0); // charges: none
        w.i32(0); // barred
        w.i64(0); // revision
        w.i32(0); // elections
        byte[] forged = w.finishWithChecksum();
        assertThatThrownBy(() -> StateMachine.restore(forged, Limits.defaults()))
                .isInstanceOf(InvariantViolation.class)
                .hasMessageContaining("lastToken");
    }

    /** An election's values (a leader's after a proclaim, two candidates', one without) survive a snapshot. */
    @Test
    void electionValuesRoundTripInVersionNine() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        long c = f.open(1_000, "c");
        f.apply(ElectionRulesTest.campaign(a, 1, "e", "A"));
        f.apply(ElectionRulesTest.campaign(b, 1, "e", "B"));
        f.apply(new Command.Acquire(c, 1, "e", -1));
        long token = ((Result.LockView) f.apply(new Status("e"))).holder().token();
        f.apply(new Command.Proclaim(a, 2, "e", token, ElectionRulesTest.v("A2")));
        byte[] s = f.sm.snapshot();
        assertThatThrownBy(() -> f.sm.snapshot(8)).isInstanceOf(IllegalArgumentException.class);
        StateMachine restored = StateMachine.restore(s, Limits.defaults());
        assertThat(restored.snapshot()).isEqualTo(s);
        Result.LockView e = (Result.LockView) restored.apply(f.now, new Status("e"));
        assertThat(e).isEqualTo(f.apply(new Status("e")));
        assertThat(e.holder().value()).isEqualTo(ElectionRulesTest.v("A2"));
        assertThat(e.waiters().stream().map(Result.WaiterView::value))
                .containsExactly(ElectionRulesTest.v("B"), ElectionValue.NONE);
        // The hand-over after the restore grants the candidate's value.
        restored.apply(f.now, new Command.Release(a, 3, "e", token, false));
        assertThat(((Result.LockView) restored.apply(f.now, new Status("e")))
                        .holder()
                        .value())
                .isEqualTo(ElectionRulesTest.v("B"));
    }

    /**
     * Version 8 is version 9 without the revision and elections blocks: read with no values and
     * revision 0, written back whole.
     */
    @Test
    void aVersionEightSnapshotLoadsWithoutElectionValues() {
        Fixture f = richState();
        byte[] v8 = f.sm.snapshot(8);
        assertThat(ByteBuffer.wrap(v8).getInt(4)).isEqualTo(8);
        byte[] v9 = f.sm.snapshot();
        assertThat(v9.length).isEqualTo(v8.length + 8 + 4);
        StateMachine restored = StateMachine.restore(v8, Fixture.small());
        assertThat(restored.revision()).isZero();
        assertThat(restored.snapshot().length).isEqualTo(v9.length);
        assertThat(restored.snapshot(8)).isEqualTo(v8);
    }

    @Test
    void restoreWithTighterLimitsThanTheStateFailsTheInvariants() {
        byte[] s = richState().sm.snapshot();
        Limits tighter = new Limits(
                100, // sessionTtlMsMin
                10_000, // sessionTtlMsMax
                8, // lockNameBytesMax
                8, // keyBytesMax
                4, // valueBytesMax
                4, // clientNameBytesMax
                2, // sessionsMax: fewer than the 3 sessions
                2, // leasesPerSessionMax
                1_000, // locksMax
                1_000, // waitersMax
                2, // waitersPerLockMax
                2, // kvKeysMax
                1L << 30, // kvBytesMax
                3, // requestIdCacheMax
                2, // historyPerLockMax
                2, // idleLocksMax
                600_000, // lockDelayMsMax
                604_800_000, // maxHoldMsMax
                16_384, // checkpointBytesMax
                1L << 30, // checkpointTotalBytesMax
                1_000, // ephemeralKeysPerSessionMax
                1_000, // permitsMax
                1_024, // electionValueBytesMax
                1L << 20, // electionValueTotalBytesMax
                0, // readLeaseMs
                PrincipalLimits.defaults());
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

    /** Two leases of x, one ended, and a waiter: four changes, revision 4. */
    private static Fixture revisedState() {
        Fixture f = new Fixture();
        long a = f.open(1_000, "a");
        long b = f.open(1_000, "b");
        Grant g = f.grant(a, 1, "x");
        f.apply(new Command.Acquire(b, 1, "x", -1));
        f.release(a, 2, "x", g.token());
        return f;
    }

    @Test
    void theRevisionRoundTripsThroughAVersionNineSnapshotAndCountsOn() {
        Fixture f = revisedState();
        assertThat(f.sm.revision()).isEqualTo(4);
        byte[] s = f.sm.snapshot();
        assertThat(ByteBuffer.wrap(s).getInt(4)).isEqualTo(9);
        assertThat(ByteBuffer.wrap(s).getLong(s.length - 4 - 4 - 8))
                .as("the revision block, before an empty elections block")
                .isEqualTo(4);
        StateMachine restored = StateMachine.restore(s, Limits.defaults());
        assertThat(restored.revision()).isEqualTo(4);
        assertThat(restored.snapshot()).isEqualTo(s);
        restored.apply(f.now, new Command.Acquire(1, 9, "y", 0));
        assertThat(restored.revision()).isEqualTo(5);
    }

    @Test
    void aVersionEightSnapshotLoadsWithRevisionZeroAndTheCounterGoesOn() {
        Fixture f = revisedState();
        byte[] s = f.sm.snapshot();
        byte[] v8 = f.sm.snapshot(8);
        assertThat(ByteBuffer.wrap(v8).getInt(4)).isEqualTo(8);
        assertThat(v8.length)
                .as("version 9 adds the revision's 8 bytes and an empty elections block's 4")
                .isEqualTo(s.length - 8 - 4);
        StateMachine old = StateMachine.restore(v8, Limits.defaults());
        assertThat(old.revision()).isZero();
        assertThat(old.snapshot(8)).isEqualTo(v8);
        old.apply(f.now, new Command.Acquire(1, 9, "y", 0));
        assertThat(old.revision()).isEqualTo(1);
    }
}
