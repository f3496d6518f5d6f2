package dev.tenure.core;

import static dev.tenure.core.Fixture.code;
import static dev.tenure.core.Fixture.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tenure.core.Command.CloseSession;
import dev.tenure.core.Command.Delete;
import dev.tenure.core.Command.Get;
import dev.tenure.core.Command.Put;
import dev.tenure.core.Result.KvValue;
import dev.tenure.core.Result.Rejected;
import dev.tenure.core.Result.Written;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keys that live while their writing session lives. */
class EphemeralKeyRulesTest {
    private static final byte[] V = {1};

    private static Put ephemeral(long sid, long rid, String key) {
        return new Put(sid, rid, key, V, null, 0, false, "", Command.ANY_VERSION, true);
    }

    private static List<String> changed(Fixture f) {
        List<String> keys = new ArrayList<>();
        f.sm.drainChangedKeys(keys::add);
        return keys;
    }

    @Test
    void anEphemeralKeyNamesItsSessionAndIsDeletedWhenTheSessionCloses() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        assertThat(f.apply(ephemeral(a, 1, "m"))).isEqualTo(new Written(1));
        KvValue v = (KvValue) f.apply(new Get("m"));
        assertThat(v.ephemeralSessionId()).isEqualTo(a);
        assertThat(v.version()).isEqualTo(1);
        f.apply(new CloseSession(a, TenureEnd.RELEASED));
        assertThat(code(f.apply(new Get("m")))).isEqualTo(Code.NOT_FOUND);
    }

    @Test
    void anExpiredSessionsKeysGoInTheApplyThatEndsIt() {
        Fixture f = new Fixture();
        f.sm.trackChangedKeys();
        long a = f.open(1_000);
        long b = f.open(5_000);
        f.apply(ephemeral(a, 1, "c"));
        f.apply(ephemeral(a, 2, "a"));
        f.apply(ephemeral(a, 3, "b"));
        f.apply(ephemeral(b, 1, "d"));
        changed(f);
        f.advanceTo(2_001); // a's deadline (1_000 + 1_000) has passed; b's has not
        assertThat(changed(f)).containsExactly("a", "b", "c");
        assertThat(code(f.apply(new Get("a")))).isEqualTo(Code.NOT_FOUND);
        assertThat(((KvValue) f.apply(new Get("d"))).ephemeralSessionId()).isEqualTo(b);
    }

    @Test
    void anotherSessionsPutIsRefusedWhileTheOwnerLives() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.apply(ephemeral(a, 1, "m"));
        Rejected r = rejected(f.apply(new Put(b, 1, "m", new byte[] {2}, null, 0)));
        assertThat(r)
                .isEqualTo(new Rejected(
                        Code.EPHEMERAL_CONFLICT,
                        "key m is ephemeral, held by live session " + a
                                + "; it is deleted when that session ends; nothing changed",
                        0));
        assertThat(code(f.apply(ephemeral(b, 2, "m")))).isEqualTo(Code.EPHEMERAL_CONFLICT);
        assertThat(code(f.apply(new Put(0, 0, "m", V, null, 0)))).isEqualTo(Code.EPHEMERAL_CONFLICT);
        assertThat(((KvValue) f.apply(new Get("m"))).version()).isEqualTo(1);
        f.apply(new CloseSession(a, TenureEnd.RELEASED));
        assertThat(f.apply(new Put(b, 3, "m", new byte[] {2}, null, 0))).isEqualTo(new Written(1));
    }

    @Test
    void theOwnersPlainPutMakesTheKeyDurableAndItsEphemeralPutKeepsItEphemeral() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.apply(ephemeral(a, 1, "m"));
        assertThat(f.apply(ephemeral(a, 2, "m"))).isEqualTo(new Written(2));
        assertThat(((KvValue) f.apply(new Get("m"))).ephemeralSessionId()).isEqualTo(a);
        assertThat(f.apply(new Put(a, 3, "m", V, null, 0))).isEqualTo(new Written(3));
        assertThat(((KvValue) f.apply(new Get("m"))).ephemeralSessionId()).isZero();
        f.apply(new CloseSession(a, TenureEnd.RELEASED));
        assertThat(((KvValue) f.apply(new Get("m"))).version()).isEqualTo(3);
    }

    @Test
    void aDeleteIsNotATakeoverAndAnEphemeralPutMayClaimADurableKey() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        long b = f.open(1_000);
        f.apply(new Put(0, 0, "m", V, null, 0));
        assertThat(f.apply(ephemeral(a, 1, "m"))).isEqualTo(new Written(2));
        assertThat(f.apply(new Delete(b, 1, "m", null, 0))).isEqualTo(new Written(2));
        f.apply(new CloseSession(a, TenureEnd.RELEASED)); // nothing left to delete: the invariants hold
        assertThat(code(f.apply(new Get("m")))).isEqualTo(Code.NOT_FOUND);
    }

    @Test
    void anEphemeralPutNeedsASessionAndItsCountIsBounded() {
        Fixture f = new Fixture(Limits.defaults().with("ephemeralKeysPerSessionMax", 2));
        assertThat(rejected(f.apply(ephemeral(0, 0, "m"))))
                .isEqualTo(new Rejected(
                        Code.INVALID, "an ephemeral put needs a session: the key lives while its session does", 0));
        long a = f.open(1_000);
        f.apply(ephemeral(a, 1, "k1"));
        f.apply(ephemeral(a, 2, "k2"));
        assertThat(rejected(f.apply(ephemeral(a, 3, "k3"))))
                .isEqualTo(new Rejected(Code.LIMIT, "ephemeralKeysPerSessionMax (2) reached by session " + a, 0));
        assertThat(f.apply(ephemeral(a, 4, "k2"))).isEqualTo(new Written(2)); // rewriting one it holds is fine
        f.apply(new Put(a, 5, "k1", V, null, 0)); // durable now: room for another
        assertThat(f.apply(ephemeral(a, 6, "k3"))).isEqualTo(new Written(1));
    }

    @Test
    void ephemeralKeysSurviveASnapshotAndStillGoWithTheirSession() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.apply(ephemeral(a, 1, "m"));
        StateMachine restored = StateMachine.restore(f.sm.snapshot(), Limits.defaults());
        restored.setFullInvariantChecks(true);
        assertThat(((KvValue) restored.apply(f.now, new Get("m"))).ephemeralSessionId())
                .isEqualTo(a);
        assertThat(restored.apply(f.now, ephemeral(a, 1, "m"))).isEqualTo(new Written(1)); // a retry, from the cache
        restored.apply(f.now, new CloseSession(a, TenureEnd.RELEASED));
        restored.checkInvariants();
        assertThat(code(restored.apply(f.now, new Get("m")))).isEqualTo(Code.NOT_FOUND);
    }

    @Test
    void aVersionSevenSnapshotLoadsEveryKeyAtVersionOneWithoutAnOwner() {
        Fixture f = new Fixture();
        long a = f.open(1_000);
        f.apply(new Put(0, 0, "k", V, null, 0));
        f.apply(new Put(0, 0, "k", V, null, 0));
        f.apply(ephemeral(a, 1, "m"));
        byte[] v7 = SnapshotCodec.encode(SnapshotCodec.decode(f.sm.snapshot(), Limits.defaults()), 7);
        StateMachine restored = StateMachine.restore(v7, Limits.defaults());
        restored.checkInvariants();
        KvValue k = (KvValue) restored.apply(f.now, new Get("k"));
        KvValue m = (KvValue) restored.apply(f.now, new Get("m"));
        assertThat(List.of(k.version(), k.ephemeralSessionId(), m.version(), m.ephemeralSessionId()))
                .containsExactly(1L, 0L, 1L, 0L);
        // its cached write was remembered as OK, as the build that wrote version 7 remembered it
        assertThat(restored.apply(f.now, ephemeral(a, 1, "m"))).isEqualTo(new Result.Ok());
    }
}
